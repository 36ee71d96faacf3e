// Package upgrade is the upgrade report: which moves to another minor a
// stack is due for (MovesDue: a planned step's, the provider's forced
// move, the upstream end of support), which planned steps drain which
// nodes (DrainsNodes, DrainedNodes), and what a move breaks, judged from
// what was read (JudgeUpgrade: the API kinds the target minor stops
// serving and the calls still made to them, the layers' releases against
// their projects' support tables, the PodDisruptionBudgets that hold a
// drain), and a stack's next hard date (NextHardDate). It is pure: what it
// judges is read by probes (Opened.ReadUpgrade) and passed in.
package upgrade
