package app

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// positiveDuration is a duration flag that refuses 0 and less when parsed,
// so that pflag reports it as it reports a value that is no duration
// ("invalid argument "0s" for "--timeout" flag: must be more than 0 …",
// then the command's help line): --timeout.
type positiveDuration struct{ p *time.Duration }

func (d positiveDuration) String() string { return d.p.String() }
func (d positiveDuration) Type() string   { return "duration" }
func (d positiveDuration) Set(s string) error {
	v, err := time.ParseDuration(s)
	if err != nil {
		return errors.New("not a duration: write a number and a unit (e.g. 30s, 2m)")
	}
	if v <= 0 {
		return errors.New("must be more than 0 (e.g. 30s)")
	}
	*d.p = v
	return nil
}

// atLeastOne is an integer flag that refuses 0 and less when parsed, in
// the words of positiveDuration: --parallel.
type atLeastOne struct{ p *int }

func (n atLeastOne) String() string { return strconv.Itoa(*n.p) }
func (n atLeastOne) Type() string   { return "int" }
func (n atLeastOne) Set(s string) error {
	v, err := strconv.Atoi(s)
	if err != nil {
		return errors.New("not a whole number")
	}
	if v < 1 {
		return errors.New("must be at least 1")
	}
	*n.p = v
	return nil
}

// oneOf is a string flag that refuses, when parsed, a value not among
// allowed, in the words of positiveDuration: fleet's --sort.
type oneOf struct {
	p       *string
	allowed []string
}

func (o oneOf) String() string { return *o.p }
func (o oneOf) Type() string   { return "string" }
func (o oneOf) Set(s string) error {
	if !slices.Contains(o.allowed, s) {
		return fmt.Errorf("must be one of %s", strings.Join(o.allowed, ", "))
	}
	*o.p = s
	return nil
}
