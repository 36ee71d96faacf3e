//go:build tools

// Package k8sbin only pins the commands that build.sh compiles, so that
// `go mod tidy` keeps their dependencies.
package k8sbin

import (
	_ "go.etcd.io/etcd/server/v3"
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
	_ "k8s.io/kubernetes/cmd/kubectl"
)
