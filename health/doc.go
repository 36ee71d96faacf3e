// Package health judges the layers of a stack from what was read: whether
// a layer is there (SignalSeen, JudgeWorkloads: its CRD groups,
// provisioners and workloads, the signals of the catalog in package
// topology), whether each of its workloads is available (JudgeWorkloads),
// and what its operator's own status objects say
// (JudgeStatus: one file per operator — rookceph.go, cnpg.go, longhorn.go,
// prometheus.go, certmanager.go, externalsecrets.go, flux.go, argocd.go —
// and kstatus for a custom layer's resource); JudgeLayer is both. It also picks the default
// StorageClass by Kubernetes' own rule (DefaultStorage). It is pure: the
// facts are passed in, and it does no I/O.
package health
