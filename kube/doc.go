// Package kube holds what nestor knows of Kubernetes itself, independent of
// any stack: version arithmetic (Version, ParseVersion, CompareMinor), the
// upstream support calendar (UpstreamCalendar, Calendar.Standing, from
// kubernetes.io "Releases" and kubernetes/website's schedule data), and the
// API lifecycle table generated from k8s.io/api's prerelease lifecycle
// (APIRemovals). It is pure: it imports nothing of nestor's and does no I/O.
package kube
