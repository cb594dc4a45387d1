// pulumi-language-python as scripts/install-pulumi-engine.sh installs it next to `pulumi`: a
// launcher that starts the real Python language host (sdk/v3 v3.68.0, kept in
// <engine root>/python-host/) with the project's `runtime.options`, given the way the engine of
// that host's own release gave them.
//
// Why: the v3.68 host reads its options only from its command line: `-virtualenv=<dir>` and
// `-root=<project folder>` (its main.go), which the v3.68 engine built from Pulumi.yaml, one
// `-<option>=<value>` per option and `-root=`, before the engine's address
// (sdk/go/common/resource/plugin/langruntime_plugin.go, buildArgsForNewPlugin, v3.68.0). The
// 3.248 engine passes only its logging and tracing flags and its address, and sends the options
// inside the requests (ProgramInfo.options), which the v3.68 host does not read: unlaunched,
// `virtualenv: venv` is ignored and the program runs on the first `python` on PATH.
//
// With the flags the host does what it did under its own engine: it runs the program, `pip list`
// (the packages that need plugins) and `pulumi install` in that virtualenv, and creates it from
// requirements.txt when the folder is missing or empty.
//
// Where the options come from: the 3.248 engine starts a language host in the program's working
// directory, the project's folder or the folder its `main:` names (pkg/engine/deployment.go,
// ProjectInfoContext; pkg/host/host.go, LanguageRuntime), so the launcher looks for
// Pulumi.json|yaml|yml there and then in each parent, as the CLI itself finds a project
// (workspace.DetectProjectPathFrom). A project of another runtime (a YAML stack running a
// Python plugin, say), or none, starts the host as before.
//
// `toolchain: pip` is what the host does anyway; poetry and uv, `typechecker` and any option the
// host does not know fail at start, in one line naming the option, rather than being ignored.
package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"syscall"

	"gopkg.in/yaml.v3"
)

// The project file's names, in the CLI's order (sdk/go/common/encoding, Exts).
var projectFiles = []string{"Pulumi.json", "Pulumi.yaml", "Pulumi.yml"}

type runtime struct {
	Name    string
	Options map[string]any
}

// UnmarshalYAML reads `runtime: python` as well as `runtime: {name: python, options: {…}}`.
func (r *runtime) UnmarshalYAML(node *yaml.Node) error {
	if node.Kind == yaml.ScalarNode {
		return node.Decode(&r.Name)
	}
	var full struct {
		Name    string         `yaml:"name"`
		Options map[string]any `yaml:"options"`
	}
	if err := node.Decode(&full); err != nil {
		return err
	}
	r.Name, r.Options = full.Name, full.Options
	return nil
}

// findProject returns the project file of dir or of its nearest parent that has one.
func findProject(dir string) (string, error) {
	for {
		for _, name := range projectFiles {
			path := filepath.Join(dir, name)
			if info, err := os.Stat(path); err == nil && !info.IsDir() {
				return path, nil
			} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
				return "", err
			}
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", nil
		}
		dir = parent
	}
}

// hostFlags returns the flags of the v3.68 host for the project around dir (none for a project
// of another runtime, or outside any project), or why the project cannot run on that host.
func hostFlags(dir string) ([]string, error) {
	project, err := findProject(dir)
	if err != nil || project == "" {
		// No project to read (or none readable): the host as the engine started it.
		return nil, nil
	}
	text, err := os.ReadFile(project)
	if err != nil {
		return nil, err
	}
	var file struct {
		Runtime runtime `yaml:"runtime"`
	}
	if err := yaml.Unmarshal(text, &file); err != nil {
		return nil, fmt.Errorf("%s: %w", project, err)
	}
	if file.Runtime.Name != "python" {
		return nil, nil
	}
	flags := []string{}
	keys := make([]string, 0, len(file.Runtime.Options))
	for key := range file.Runtime.Options {
		keys = append(keys, key)
	}
	sort.Strings(keys)
	for _, key := range keys {
		value := file.Runtime.Options[key]
		switch key {
		case "virtualenv":
			dir, ok := value.(string)
			if !ok || dir == "" {
				return nil, fmt.Errorf("runtime.options.virtualenv in %s must be a folder's path, relative to the project's folder or absolute (got %v)", project, value)
			}
			flags = append(flags, "-virtualenv="+dir)
		case "toolchain":
			if value != "pip" {
				return nil, fmt.Errorf("runtime.options.toolchain %q in %s is not supported by this Python language host (sdk/v3 v3.68.0, built by scripts/install-pulumi-engine.sh): use `toolchain: pip` with `virtualenv: <folder>`, or leave toolchain out", fmt.Sprint(value), project)
			}
		default:
			return nil, fmt.Errorf("runtime.options.%s in %s is not supported by this Python language host (sdk/v3 v3.68.0, built by scripts/install-pulumi-engine.sh), which reads only virtualenv and toolchain: pip; remove it", key, project)
		}
	}
	return append(flags, "-root="+filepath.Dir(project)), nil
}

func main() {
	self, err := os.Executable()
	if err != nil {
		fail(fmt.Errorf("locating the launcher: %w", err))
	}
	host := filepath.Join(filepath.Dir(filepath.Dir(self)), "python-host", "pulumi-language-python")
	cwd, err := os.Getwd()
	if err != nil {
		fail(fmt.Errorf("getting the working directory: %w", err))
	}
	flags, err := hostFlags(cwd)
	if err != nil {
		fail(err)
	}
	// The engine's own arguments are flags and then its address, the one positional argument:
	// the host's flags go first, where the host's flag parser still reads them.
	args := append(append([]string{host}, flags...), os.Args[1:]...)
	if err := syscall.Exec(host, args, os.Environ()); err != nil {
		fail(fmt.Errorf("starting the Python language host %s: %w (run `npm run setup:python` to build it)", host, err))
	}
}

func fail(err error) {
	fmt.Fprintf(os.Stderr, "error: %v\n", err)
	os.Exit(1)
}
