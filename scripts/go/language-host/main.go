// pulumi-language-python and pulumi-language-go as scripts/install-pulumi-engine.sh installs
// them next to `pulumi`: one launcher, built under each host's name, that starts the real
// language host of an older sdk/v3 release (kept in <engine root>/<runtime>-host/) with the
// project's `runtime.options`, given the way the engine of that host's own release gave them.
// Its name says which host it starts: pulumi-language-<runtime>.
//
// Why: the standalone host modules of 3.248 are refused by the Go module proxy these machines
// use, so the hosts are those that still lived inside sdk/v3 (Python v3.68.0, Go v3.66.0). They
// read their options only from their command line (`-virtualenv=<dir>`; `-binary=<name>`,
// `-buildTarget=<path>`; and `-root=<project folder>`), which their own engine built from
// Pulumi.yaml, one `-<option>=<value>` per option and `-root=`, before the engine's address
// (sdk/go/common/resource/plugin/langruntime_plugin.go, buildArgsForNewPlugin). The 3.248 engine
// passes only its logging and tracing flags and its address, and sends the options inside the
// requests (ProgramInfo.options), which these hosts do not read: unlaunched, `virtualenv: venv`
// is ignored and the program runs on the first `python` on PATH, and a Go `binary:` is ignored
// and the program compiled instead.
//
// With the flags each host does what it did under its own engine: Python runs the program,
// `pip list` and `pulumi install` in that virtualenv (made from requirements.txt when missing);
// Go runs the prebuilt `binary`, or builds the program to `buildTarget` and keeps it.
//
// Where the options come from: the 3.248 engine starts a language host in the program's working
// directory, the project's folder or the folder its `main:` names (pkg/engine/deployment.go,
// ProjectInfoContext; pkg/host/host.go, LanguageRuntime), so the launcher looks for
// Pulumi.json|yaml|yml there and then in each parent, as the CLI itself finds a project
// (workspace.DetectProjectPathFrom). A project of another runtime (a YAML stack running a
// Python plugin, say), or none, starts the host as before.
//
// An option the host cannot honour (poetry or uv, `typechecker`, any unknown one) fails at
// start, in one line naming the option, rather than being ignored.
package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"

	"gopkg.in/yaml.v3"
)

// The project file's names, in the CLI's order (sdk/go/common/encoding, Exts).
var projectFiles = []string{"Pulumi.json", "Pulumi.yaml", "Pulumi.yml"}

// option turns one runtime option's value into the host's flags, or says why it cannot.
type option func(value any) ([]string, error)

// host is what the launcher knows of one runtime's host: its name in messages, the options it
// reads, and pairs of them it refuses together.
type host struct {
	name      string
	options   map[string]option
	exclusive [][2]string
}

// The sdk/v3 release of the host this launcher starts, set when it is built
// (scripts/install-pulumi-engine.sh, -X main.hostRelease=…), for its messages.
var hostRelease = "unknown"

var hosts = map[string]host{
	"python": {"Python", map[string]option{
		"virtualenv": pathFlag("-virtualenv", "a folder's path, relative to the project's folder or absolute"),
		// pip is what the host does anyway; poetry and uv it does not know.
		"toolchain": func(value any) ([]string, error) {
			if value != "pip" {
				return nil, errors.New("use `toolchain: pip` with `virtualenv: <folder>`, or leave toolchain out")
			}
			return nil, nil
		},
	}, nil},
	// Relative paths are the program folder's: the host runs there.
	"go": {"Go", map[string]option{
		"binary":      pathFlag("-binary", "the prebuilt program's path or name on PATH"),
		"buildTarget": pathFlag("-buildTarget", "the path to build the program to"),
	}, [][2]string{{"binary", "buildTarget"}}},
}

func pathFlag(flag, what string) option {
	return func(value any) ([]string, error) {
		path, ok := value.(string)
		if !ok || path == "" {
			return nil, fmt.Errorf("it must be %s", what)
		}
		return []string{flag + "=" + path}, nil
	}
}

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

// hostFlags returns the flags of the runtime's host for the project around dir (none for a
// project of another runtime, or outside any project), or why the project cannot run on it.
func hostFlags(runtimeName string, dir string) ([]string, error) {
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
	if file.Runtime.Name != runtimeName {
		return nil, nil
	}
	target := hosts[runtimeName]
	release := "sdk/v3 v" + hostRelease
	for _, pair := range target.exclusive {
		_, first := file.Runtime.Options[pair[0]]
		_, second := file.Runtime.Options[pair[1]]
		if first && second {
			return nil, fmt.Errorf("runtime.options.%s and %s in %s cannot both be set for this %s language host (%s, built by scripts/install-pulumi-engine.sh): keep one",
				pair[0], pair[1], project, target.name, release)
		}
	}
	keys := make([]string, 0, len(file.Runtime.Options))
	for key := range file.Runtime.Options {
		keys = append(keys, key)
	}
	sort.Strings(keys)
	flags := []string{}
	for _, key := range keys {
		toFlags, known := target.options[key]
		if !known {
			return nil, fmt.Errorf("runtime.options.%s in %s is not supported by this %s language host (%s, built by scripts/install-pulumi-engine.sh), which reads only %s; remove it",
				key, project, target.name, release, target.known())
		}
		more, err := toFlags(file.Runtime.Options[key])
		if err != nil {
			return nil, fmt.Errorf("runtime.options.%s %q in %s is not supported by this %s language host (%s, built by scripts/install-pulumi-engine.sh): %w",
				key, fmt.Sprint(file.Runtime.Options[key]), project, target.name, release, err)
		}
		flags = append(flags, more...)
	}
	return append(flags, "-root="+filepath.Dir(project)), nil
}

func (h host) known() string {
	names := make([]string, 0, len(h.options))
	for name := range h.options {
		names = append(names, name)
	}
	sort.Strings(names)
	return strings.Join(names, " and ")
}

func main() {
	self, err := os.Executable()
	if err != nil {
		fail(fmt.Errorf("locating the launcher: %w", err))
	}
	binary := filepath.Base(os.Args[0])
	runtimeName := strings.TrimPrefix(binary, "pulumi-language-")
	if _, known := hosts[runtimeName]; !known || runtimeName == binary {
		fail(fmt.Errorf("this launcher starts pulumi-language-python or pulumi-language-go, not %s", binary))
	}
	hostPath := filepath.Join(filepath.Dir(filepath.Dir(self)), runtimeName+"-host", binary)
	cwd, err := os.Getwd()
	if err != nil {
		fail(fmt.Errorf("getting the working directory: %w", err))
	}
	flags, err := hostFlags(runtimeName, cwd)
	if err != nil {
		fail(err)
	}
	// The engine's own arguments are flags and then its address, the one positional argument:
	// the host's flags go first, where the host's flag parser still reads them.
	args := append(append([]string{hostPath}, flags...), os.Args[1:]...)
	if err := syscall.Exec(hostPath, args, os.Environ()); err != nil {
		fail(fmt.Errorf("starting the %s language host %s: %w (run `npm run setup:%s` to build it)", hosts[runtimeName].name, hostPath, err, runtimeName))
	}
}

func fail(err error) {
	fmt.Fprintf(os.Stderr, "error: %v\n", err)
	os.Exit(1)
}
