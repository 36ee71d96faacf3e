package action

import "context"

// Preview is `nestor preview`: it opens the stack's target through the
// pipeline, reads it, and builds the Report (DESIRED, ACTUAL, PLAN). It
// never writes.
type Preview struct {
	Config
	Selection Selection
}

// Run returns the preview of the selected stack and the stack itself (for
// the command lines the human view suggests). Errors: the stack does not
// load; the pipeline refused or could not open the target; ctx ended.
func (p Preview) Run(ctx context.Context) (*Report, *Stack, error) {
	p.Config = p.Config.prefetchBenches(nil)
	s, err := p.LoadStack(p.Selection)
	if err != nil {
		return nil, nil, err
	}
	op, err := p.Open(ctx, s, OpenOptions{})
	defer op.Close()
	if err != nil {
		return nil, s, err
	}
	r, err := ReadReport(ctx, s.Kind, op, p.AsOf)
	if err != nil {
		return nil, s, err
	}
	return r, s, nil
}
