// Command nestor-floor is the benchmark's floor (the cost of the API server
// alone): it reads every list nestor's prod preview needs, whole and in
// parallel, in the cheapest encoding the server offers (package floor), and
// prints what it read as one JSON line:
// {"items":{"nodes":N,…},"requests":R,"bytes":B}. It is run as its own
// process so its wall time and peak RSS compare with nestor's and kubectl's.
//
//	nestor-floor -kubeconfig FILE [-gzip]
//
// Exit status 1 on any error (message on stderr).
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"time"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"nestor.dev/nestor/tests/bench/floor"
)

func main() {
	kubeconfig := flag.String("kubeconfig", "", "kubeconfig of the cluster to read (required; its current-context is used)")
	timeout := flag.Duration("timeout", 60*time.Second, "bound on the whole read")
	gzip := flag.Bool("gzip", false, "ask for gzip-compressed answers (client-go's default); off by default: on loopback, compressing costs more than the bytes it saves")
	flag.Parse()
	if err := run(*kubeconfig, *timeout, *gzip); err != nil {
		fmt.Fprintln(os.Stderr, "nestor-floor:", err)
		os.Exit(1)
	}
}

func run(kubeconfig string, timeout time.Duration, gzip bool) error {
	if kubeconfig == "" {
		return fmt.Errorf("-kubeconfig FILE is required")
	}
	// Only the explicit file is read (no ~/.kube/config, no KUBECONFIG).
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return err
	}
	cfg.DisableCompression = !gzip
	if gzip {
		floor.UserAgent = "nestor-floor-gzip/v1" // its own requests in the audit log
	}
	hc, err := rest.HTTPClientFor(cfg)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	res, err := floor.Read(ctx, hc, cfg.Host)
	if err != nil {
		return err
	}
	return json.NewEncoder(os.Stdout).Encode(res)
}
