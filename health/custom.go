package health

import "nestor.dev/nestor/topology"

// judgeCustom: a custom layer's one resource (detect.resource), judged by
// kstatus (kstatusOf). Not found is degraded; JudgeLayer makes the
// layer absent instead when nothing else of it was found.
func judgeCustom(j *statusJudge) {
	for _, res := range j.res {
		objs, known := j.objects(res.Kind)
		if !known {
			continue
		}
		if len(objs) == 0 {
			j.bad = append(j.bad, res.Kind+" "+refName(res)+" not found")
			continue
		}
		for _, o := range objs {
			h, moving, says := kstatusOf(o)
			j.decide(o, h, moving, says, res.Kind+" "+o.Ref()+": "+says)
			if h == topology.Healthy {
				j.good = append(j.good, res.Kind+" "+o.Ref()+" "+says)
			}
		}
	}
}
