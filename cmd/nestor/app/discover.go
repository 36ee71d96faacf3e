package app

// PLACEHOLDER: helper-4 replaces this file with the real discover command.

import (
	"context"
	"errors"

	"github.com/spf13/cobra"

	"nestor.dev/nestor/topology"
)

type fetchOptions struct{}

func newDiscoverCmd(a *App, g *globals) *cobra.Command {
	return &cobra.Command{Use: "discover", RunE: func(*cobra.Command, []string) error { return errors.New("discover: not built yet") }}
}

func (a *App) fetchKubeconfig(ctx context.Context, g *globals, t *topology.Topology, node string, o fetchOptions) error {
	return errors.New("fetch: not built yet")
}
