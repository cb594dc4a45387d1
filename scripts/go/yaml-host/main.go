// pulumi-language-yaml as scripts/install-pulumi-engine.sh builds it: the language host of
// github.com/pulumi/pulumi-yaml (v1.13.0, the newest release the Go module proxy serves), started
// the way its own cmd/pulumi-language-yaml starts it, with one adapter for the engine it runs
// under.
//
// Why the adapter: pulumi-yaml v1.13.0 reads a program's `config:` values only from the typed
// `configPropertyMap` of the Run request, which the Pulumi 3.248 engine no longer sends (it sends
// the string map `config` and `configSecretKeys`). Unadapted, every `${key}` of a `config:` entry
// fails with "resource, variable, or config value not found". The adapter rebuilds the typed map
// from the string map, typed by the project's `config:` declarations, as engines up to 3.143 did.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"time"

	"github.com/pulumi/pulumi-yaml/pkg/server"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource/plugin"
	"github.com/pulumi/pulumi/sdk/v3/go/common/util/cmdutil"
	"github.com/pulumi/pulumi/sdk/v3/go/common/util/logging"
	"github.com/pulumi/pulumi/sdk/v3/go/common/util/rpcutil"
	"github.com/pulumi/pulumi/sdk/v3/go/common/workspace"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/types/known/structpb"
)

func main() {
	var tracing, root, compiler string
	flag.StringVar(&tracing, "tracing", "", "Emit tracing to a Zipkin-compatible tracing endpoint")
	flag.StringVar(&root, "root", "", "Root of the program execution")
	flag.StringVar(&compiler, "compiler", "", "Compiler to use to pre-process YAML")
	flag.Parse()
	args := flag.Args()
	logging.InitLogging(false, 0, false)
	cmdutil.InitTracing("pulumi-language-yaml", "pulumi-language-yaml", tracing)

	var engineAddress string
	var cancelChannel chan bool
	if len(args) > 0 {
		engineAddress = args[0]
		var err error
		if cancelChannel, err = healthChecks(engineAddress); err != nil {
			cmdutil.Exit(fmt.Errorf("could not start health check host RPC server: %w", err))
		}
	}

	port, done, err := rpcutil.Serve(0, cancelChannel, []func(*grpc.Server) error{
		func(srv *grpc.Server) error {
			host := server.NewLanguageHost(engineAddress, tracing, compiler, false /* useRPCLoader */)
			pulumirpc.RegisterLanguageRuntimeServer(srv, typedConfigHost{host})
			return nil
		},
	}, nil)
	if err != nil {
		cmdutil.Exit(fmt.Errorf("could not start language host RPC server: %w", err))
	}
	// The engine reads the port from the first line of stdout.
	fmt.Printf("%d\n", port)
	if err := <-done; err != nil {
		cmdutil.Exit(fmt.Errorf("language host RPC stopped serving: %w", err))
	}
}

// healthChecks ends the host when the engine goes away or on SIGINT.
func healthChecks(engineAddress string) (chan bool, error) {
	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt)
	cancelChannel := make(chan bool)
	go func() {
		<-ctx.Done()
		cancel()
		close(cancelChannel)
	}()
	if err := rpcutil.Healthcheck(ctx, engineAddress, 5*time.Minute, cancel); err != nil {
		return nil, err
	}
	return cancelChannel, nil
}

// typedConfigHost is the YAML host with Run given the typed config map it expects.
type typedConfigHost struct {
	pulumirpc.LanguageRuntimeServer
}

func (h typedConfigHost) Run(ctx context.Context, req *pulumirpc.RunRequest) (*pulumirpc.RunResponse, error) {
	if req.GetConfigPropertyMap() == nil && len(req.GetConfig()) > 0 {
		typed, err := typedConfig(req)
		if err != nil {
			return &pulumirpc.RunResponse{Error: err.Error()}, nil
		}
		req.ConfigPropertyMap = typed
	}
	return h.LanguageRuntimeServer.Run(ctx, req)
}

// typedConfig: each `project:key` (and other namespaces' keys, as the older engines sent them) as
// the type its `config:` declaration gives, or its default's type; secrets stay secret.
func typedConfig(req *pulumirpc.RunRequest) (*structpb.Struct, error) {
	declared := map[string]workspace.ProjectConfigType{}
	if path, err := workspace.DetectProjectPathFrom(req.GetInfo().GetRootDirectory()); err == nil {
		if project, err := workspace.LoadProject(path); err == nil {
			declared = project.Config
		}
	}
	secret := map[string]bool{}
	for _, key := range req.GetConfigSecretKeys() {
		secret[key] = true
	}
	prefix := req.GetProject() + ":"
	props := resource.PropertyMap{}
	for key, raw := range req.GetConfig() {
		declaration, ok := declared[key]
		if !ok && strings.HasPrefix(key, prefix) {
			declaration = declared[strings.TrimPrefix(key, prefix)]
		}
		value, err := typedValue(key, raw, declaration)
		if err != nil {
			return nil, err
		}
		if secret[key] {
			value = resource.MakeSecret(value)
		}
		props[resource.PropertyKey(key)] = value
	}
	return plugin.MarshalProperties(props, plugin.MarshalOptions{KeepSecrets: true, SkipInternalKeys: true})
}

// typedValue reads a config string as its declared type. Undeclared values: JSON objects and
// arrays (how the engine passes structured config) are structured, anything else a string.
func typedValue(key, raw string, declaration workspace.ProjectConfigType) (resource.PropertyValue, error) {
	kind := ""
	if declaration.Type != nil {
		kind = *declaration.Type
	} else if declaration.Default != nil {
		switch declaration.Default.(type) {
		case bool:
			kind = "boolean"
		case int, int64, uint64, float64:
			kind = "number"
		case string:
			kind = "string"
		default:
			kind = "object"
		}
	}
	if kind == "string" {
		return resource.NewStringProperty(raw), nil
	}
	if kind == "" && !strings.HasPrefix(raw, "{") && !strings.HasPrefix(raw, "[") {
		return resource.NewStringProperty(raw), nil
	}
	var parsed interface{}
	if err := json.Unmarshal([]byte(raw), &parsed); err != nil {
		if kind == "" {
			return resource.NewStringProperty(raw), nil
		}
		return resource.PropertyValue{}, fmt.Errorf("config %s: %q is not a valid %s", key, raw, kind)
	}
	return resource.NewPropertyValue(parsed), nil
}
