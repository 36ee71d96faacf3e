package action

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"nestor.dev/nestor/probes"
	"nestor.dev/nestor/probes/ssh"
	"nestor.dev/nestor/topology"
)

// FetchOptions are the flags of `discover --cp` that say how to reach the
// control-plane node (ssh.Flags).
type FetchOptions = ssh.Flags

// Fetch is `nestor discover --cp NODE`: it copies the admin kubeconfig of a
// control-plane node over ssh, writes it to the stack's kubeconfig path and
// proves access through the target pipeline.
type Fetch struct {
	Config
	Selection Selection
	// Node is the control-plane node to fetch from.
	Node    string
	Options FetchOptions
}

// Run loads the selected stack, refuses a stack that is not prod (a
// bench's kubeconfig is its own, never fetched), then fetches (see
// fetchKubeconfig).
func (f Fetch) Run(ctx context.Context) error {
	s, err := f.LoadStack(f.Selection)
	if err != nil {
		return err
	}
	if err := s.Kind.Fetch(s.Topology, f.Home); err != nil {
		return err
	}
	return f.fetchKubeconfig(ctx, s, f.Node, f.Options)
}

// fetchKubeconfig copies the admin kubeconfig of control-plane node `node`
// of the prod stack t over ssh (ssh.FetchAdminConf), writes it to the
// stack's kubeconfig path, then proves access through the guard. It is
// `discover --cp NODE`, and what `stack select` runs when the operator
// accepts to fetch. Steps and refusals:
//
//   - the path: t's kubeconfig: resolved, else --kubeconfig; both set and
//     different, or none, is an error saying what to declare;
//   - the node: t's nodes (address, user, port, key) and the inventory
//     (--inventory, else t's inventory:); flags beat the inventory, which
//     beats the topology; a node known to neither is an error listing both;
//   - non-interactive: a fetched server that differs from t's endpoint: is
//     refused before anything is written; an existing different file is
//     never replaced (exit 1, saying why); interactive: the difference is
//     shown (endpoint, context, names) and the replacement confirmed;
//   - the write: folder created 0700, file 0600 through a temp file renamed;
//     an identical file is left as is ("unchanged");
//   - the proof: the target loaded from the written file goes through the
//     guard (printed, and confirmed when interactive).
//
// Nothing of the file's content is printed.
func (f Fetch) fetchKubeconfig(ctx context.Context, s *Stack, node string, o FetchOptions) error {
	t := s.Topology
	dest, kc, err := f.fetchDestination(t)
	if err != nil {
		return err
	}
	if t.Endpoint == "" && !f.Interactive {
		return fmt.Errorf("nothing fetched: --no-input checks a fetched kubeconfig against the topology's endpoint:, and %s declares none; "+
			"add `endpoint: https://ADDRESS:6443` (this stack's API server) after target_kind:, or run in a terminal to review the fetched one", t.Path)
	}
	ac, err := f.fetch(ctx, t, node, o)
	if err != nil {
		return err
	}
	if err := f.acceptServer(t, node, ac); err != nil {
		return err
	}
	if err := f.write(dest, node, ac); err != nil {
		return err
	}
	if f.Kubeconfig == "" {
		if v, ok := f.Env("KUBECONFIG"); ok && strings.Trim(v, string(filepath.ListSeparator)) != "" {
			f.logf("Note: KUBECONFIG is exported (%s): other nestor commands read it before the topology's kubeconfig:; unset it to use %s.", v, dest)
		}
	}
	return f.prove(ctx, s, kc, dest)
}

// fetch copies the admin kubeconfig of node over ssh, with the settings
// ssh.NodeSettings merges, saying what it runs (never the content).
func (f Fetch) fetch(ctx context.Context, t *topology.Topology, node string, o FetchOptions) (*ssh.AdminConf, error) {
	fo, notes, err := ssh.NodeSettings(ctx, t, node, o, ssh.NodeEnv{Home: f.Home, Interactive: f.Interactive, Run: f.Exec, Env: f.Env})
	if err != nil {
		return nil, err
	}
	for _, n := range notes {
		f.logf("Note: %s", n)
	}
	args, err := ssh.SSHArgs(fo)
	if err != nil {
		return nil, err
	}
	remote := fo.RemotePath
	if remote == "" {
		remote = ssh.DefaultRemotePath
	}
	f.logf("Fetching %s from %s: ssh %s", remote, node, strings.Join(args, " "))
	sctx := ctx
	if !f.Interactive {
		var cancel context.CancelFunc
		sctx, cancel = context.WithTimeout(ctx, 2*time.Minute)
		defer cancel()
	}
	ac, err := ssh.FetchAdminConf(sctx, f.Exec, fo)
	if err != nil {
		return nil, fmt.Errorf("nothing written: %w", err)
	}
	f.logf("Fetched a kubeconfig: context %s, cluster %s, user %s, server %s.", ac.Context, ac.Cluster, ac.User, ac.Server)
	if ac.RewrittenFrom != "" {
		f.logf("Rewrote its server %s (a loopback address of the node) to %s, the node's address.", ac.RewrittenFrom, ac.Server)
	}
	return ac, nil
}

// acceptServer checks the fetched server against t's endpoint: (the
// pipeline's endpoint rule, probes.SameEndpoint): a different one is
// refused without a prompt, and written only when the operator confirms.
func (f Fetch) acceptServer(t *topology.Topology, node string, ac *ssh.AdminConf) error {
	if t.Endpoint == "" {
		f.logf("WARNING: %s declares no endpoint:, so nestor cannot check that %s is this stack's API server.", t.Path, ac.Server)
		return nil
	}
	same, err := topology.SameEndpoint(ac.Server, t.Endpoint)
	switch {
	case err != nil:
		return fmt.Errorf("nothing written: cannot compare the fetched server with endpoint: of %s: %v", t.Path, err)
	case same:
		return nil
	case !f.Interactive:
		return fmt.Errorf("nothing written: the kubeconfig from %s points at %s, but %s declares endpoint: %s; "+
			"--no-input writes only a kubeconfig of the declared endpoint (fix endpoint:, or run in a terminal to review it)", node, ac.Server, t.Path, t.Endpoint)
	}
	f.logf("WARNING: the fetched server %s is not the endpoint: %s declared in %s.", ac.Server, t.Endpoint, t.Path)
	ok, err := f.Prompter.Confirm(fmt.Sprintf("Write this kubeconfig of %s for stack %s anyway?", ac.Server, t.Name), false)
	if err != nil {
		return err
	}
	if !ok {
		f.logf("Nothing written.")
		return SilentError{Code: ExitError}
	}
	return nil
}

// write writes the fetched kubeconfig to dest (folder 0700, file 0600,
// atomically); an identical file is left as is, a different one replaced
// only when the operator confirms (never without a prompt).
func (f Fetch) write(dest, node string, ac *ssh.AdminConf) error {
	old, err := os.ReadFile(dest)
	switch {
	case err == nil && bytes.Equal(old, ac.Data):
		f.logf("%s unchanged: it already holds this kubeconfig.", dest)
		return nil
	case err == nil:
		diff := describeKubeconfigChange(old, ac)
		if !f.Interactive {
			return fmt.Errorf("not replaced: %s already exists and differs from the kubeconfig of %s:\n%s\n--no-input never replaces an existing kubeconfig: review it in a terminal (nestor discover --cp %s), or move it away first",
				dest, node, diff, node)
		}
		f.logf("%s already exists and differs from the kubeconfig of %s:\n%s", dest, node, diff)
		ok, err := f.Prompter.Confirm(fmt.Sprintf("Replace %s?", dest), false)
		if err != nil {
			return err
		}
		if !ok {
			f.logf("Not replaced: %s is unchanged.", dest)
			return SilentError{Code: ExitError}
		}
	case !errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("nothing written: cannot read the existing %s: %v", dest, err)
	}
	if err := os.MkdirAll(filepath.Dir(dest), 0o700); err != nil {
		return fmt.Errorf("nothing written: %v", err)
	}
	if err := writeFileAtomic(dest, ac.Data, 0o600); err != nil {
		return fmt.Errorf("write %s: %v", dest, err)
	}
	f.logf("Wrote %s (mode 0600).", dest)
	return nil
}

// prove opens the written kubeconfig through the target pipeline (the
// guard: confirmed, or the endpoint checked) and reads the version and the
// nodes, to prove access.
func (f Fetch) prove(ctx context.Context, s *Stack, kc probes.Kubeconfig, dest string) error {
	op, err := f.Open(ctx, s, OpenOptions{Kubeconfig: &kc, Wrote: dest})
	var silent SilentError
	switch {
	case errors.As(err, &silent):
		f.logf("%s stays written; access was not confirmed as stack %s.", dest, s.Name)
		return err
	case err != nil:
		return fmt.Errorf("wrote %s, but access is not proven: %w", dest, err)
	}
	view, err := op.View(ctx)
	if err != nil {
		return fmt.Errorf("wrote %s, but access is not proven: %w", dest, err)
	}
	if !f.Interactive {
		f.show(*view, TargetProven)
	}
	if !view.Nodes.Known {
		f.logf("Access partly proven: %s answers, but its nodes could not be read (%s). Next: %s",
			view.Target.Endpoint, view.Nodes.Reason, s.Suggest("preview"))
		return nil
	}
	f.logf("Access proven: %s answers with %d node(s). Next: %s", view.Target.Endpoint, len(view.Nodes.Value), s.Suggest("preview"))
	return nil
}

// fetchDestination returns where discover --cp writes: t's kubeconfig:
// resolved, else --kubeconfig, and the Kubeconfig to load it back with.
func (f Fetch) fetchDestination(t *topology.Topology) (string, probes.Kubeconfig, error) {
	home := f.Home
	var dest string
	kc := probes.Kubeconfig{Source: probes.SourceTopology, Detail: "kubeconfig: in " + t.Path}
	if t.Kubeconfig != "" {
		p, err := topology.ExpandHome(t.Kubeconfig, home, filepath.Dir(t.Path), "kubeconfig: of "+t.Path)
		if err != nil {
			return "", kc, err
		}
		dest = p
	}
	if f.Kubeconfig != "" {
		flag, err := topology.ExpandHome(f.Kubeconfig, home, "", "--kubeconfig")
		if err != nil {
			return "", kc, err
		}
		switch {
		case dest == "":
			dest = flag
			kc = probes.Kubeconfig{Source: probes.SourceFlag, Detail: "--kubeconfig on the command line"}
		case dest != flag:
			return "", kc, fmt.Errorf("--kubeconfig %s is not the stack's kubeconfig: %s (%s): discover --cp writes the stack's own file; drop --kubeconfig or change kubeconfig: in %s",
				flag, dest, t.Kubeconfig, t.Path)
		}
	}
	if dest == "" {
		return "", kc, fmt.Errorf("stack %s declares no kubeconfig:, so there is nowhere to write the fetched one: add this line after target_kind: in %s (`nestor stack select %s` offers it)\n  kubeconfig: ~/.kube/%s.config\nor pass --kubeconfig PATH",
			t.Name, t.Path, t.Name, t.Name)
	}
	kc.Paths = []string{dest}
	return dest, kc, nil
}

// describeKubeconfigChange says how the kubeconfig already on disk differs
// from the fetched one: server, context, cluster and user names — never a
// credential. When only credentials differ, it says so.
func describeKubeconfigChange(old []byte, ac *ssh.AdminConf) string {
	s, err := ssh.SummarizeKubeconfig(old)
	if err != nil {
		return fmt.Sprintf("  the existing file is not a usable kubeconfig (%v); the new one: server %s, context %s", err, ac.Server, ac.Context)
	}
	var lines []string
	for _, f := range []struct{ name, old, new string }{
		{"server", s.Server, ac.Server},
		{"context", s.Context, ac.Context},
		{"cluster", s.Cluster, ac.Cluster},
		{"user", s.User, ac.User},
	} {
		if f.old != f.new {
			lines = append(lines, fmt.Sprintf("  %-8s %s → %s", f.name, cmp.Or(f.old, "<none>"), cmp.Or(f.new, "<none>")))
		} else {
			lines = append(lines, fmt.Sprintf("  %-8s %s (same)", f.name, cmp.Or(f.old, "<none>")))
		}
	}
	if s.Server == ac.Server && s.Context == ac.Context && s.Cluster == ac.Cluster && s.User == ac.User {
		lines = append(lines, "  the names and server are the same: the credentials or other settings differ (not shown)")
	}
	return strings.Join(lines, "\n")
}
