// Command nestor keeps a Kubernetes cluster in line with a declarative
// topology. This file only wires the real process (streams, environment,
// terminal prompter) into app.Run and exits with its code.
package main

import (
	"os"

	"nestor.dev/nestor/cmd/nestor/app"
)

func main() {
	os.Exit(app.Run(app.System(), os.Args[1:]))
}
