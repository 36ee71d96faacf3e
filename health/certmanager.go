package health

import (
	"fmt"
	"strings"
	"time"

	"nestor.dev/nestor/topology"
)

// judgeIssuersOrStores is the rule cert-manager and external-secrets
// share: degraded when none of the cluster-wide and namespaced objects is
// Ready, or a cluster-wide one is not Ready (the platform's own); a
// namespaced one not Ready is a finding (a tenant's). When none is Ready
// and some has not reported yet, or the namespaced list was not read,
// whether any is Ready is unknown.
func judgeIssuersOrStores(j *statusJudge, clusterKind, nsKind string, kind topology.FindingKind, what string) {
	ready, pending := 0, 0
	cluster, cknown := j.objects(clusterKind)
	for _, o := range cluster {
		h, says := readyHealth(o)
		j.decide(o, h, false, says, clusterKind+" "+o.Ref()+": "+says)
		switch h {
		case topology.Healthy:
			ready++
		case topology.Unknown:
			pending++
		}
	}
	namespaced, nknown := j.objects(nsKind)
	for _, o := range namespaced {
		h, says := readyHealth(o)
		j.report(o, h, false, says)
		switch h {
		case topology.Healthy:
			ready++
		case topology.Unknown:
			pending++
		case topology.Degraded:
			j.finding(topology.SeverityWarning, kind, nsKind+" "+o.Ref(), "%s", says)
		}
	}
	switch {
	case ready > 0:
		j.good = append(j.good, count(ready, what)+" Ready")
	case pending > 0:
		j.unknown = append(j.unknown, fmt.Sprintf("no %s Ready yet, %d not reported yet", what, pending))
	case cknown && nknown && len(cluster)+len(namespaced) == 0:
		j.bad = append(j.bad, "no "+clusterKind+" or "+nsKind)
	case cknown && nknown:
		j.bad = append(j.bad, "no "+what+" Ready")
	case cknown && !nknown:
		j.unknown = append(j.unknown, "no "+clusterKind+" Ready, and "+pluralKind(nsKind)+" not read")
	}
}

// judgeCertManager: see judgeIssuersOrStores (ClusterIssuer, Issuer).
// Certificates are findings: Ready False (argo-cd
// resource_customizations/cert-manager.io/Certificate/health.lua) a
// warning, unless condition Issuing is True: cert-manager's
// types_certificate.go says Issuing is "removed by the 'issuing' controller
// upon completing issuance", so a Certificate not Ready while it is True (a
// first issuance: Ready False, reason DoesNotExist) is progressing, and
// information (Argo CD's Certificate/health.lua also looks at Issuing
// first); status.notAfter past an error (expired); status.renewalTime past
// a warning (cert-manager renews at renewalTime: past it the certificate
// was not renewed), information while condition Issuing is True (a
// renewal runs).
func judgeCertManager(j *statusJudge) {
	judgeIssuersOrStores(j, "ClusterIssuer", "Issuer", topology.FindingIssuer, "issuer")
	certs, _ := j.objects("Certificate")
	for _, o := range certs {
		h, says := readyHealth(o)
		subject := "Certificate " + o.Ref()
		issuing, isIssuing := o.Condition("Issuing")
		isIssuing = isIssuing && issuing.Status == topology.ConditionTrue
		switch {
		case isIssuing && h != topology.Healthy && !o.Deleting:
			if h == topology.Unknown {
				says = "no Ready condition yet"
			}
			h, says = topology.Progressing, "issuing: "+says
			if issuing.Message != "" && !strings.Contains(says, firstLine(issuing.Message)) {
				says += "; " + firstLine(issuing.Message)
			}
			j.finding(topology.SeverityInfo, topology.FindingCertificate, subject, "%s", says)
		case h == topology.Degraded:
			j.finding(topology.SeverityWarning, topology.FindingCertificate, subject, "%s", says)
		}
		if na, err := time.Parse(time.RFC3339, o.Fields[topology.FieldNotAfter]); err == nil && j.now.After(na) {
			h, says = topology.Degraded, "expired "+ago(j.now, na)
			j.finding(topology.SeverityError, topology.FindingCertificate, subject, "expired at %s (%s)", na.UTC().Format(time.RFC3339), ago(j.now, na))
		} else if rt, err := time.Parse(time.RFC3339, o.Fields[topology.FieldRenewalTime]); err == nil && j.now.After(rt) {
			if c, ok := o.Condition("Issuing"); ok && c.Status == topology.ConditionTrue {
				j.finding(topology.SeverityInfo, topology.FindingCertificate, subject, "renewing: its renewal time was %s (%s)", rt.UTC().Format(time.RFC3339), ago(j.now, rt))
			} else {
				if h == topology.Healthy {
					h, says = topology.Degraded, "not renewed since its renewal time, "+ago(j.now, rt)
				}
				j.finding(topology.SeverityWarning, topology.FindingCertificate, subject, "past its renewal time %s (%s) and not renewed", rt.UTC().Format(time.RFC3339), ago(j.now, rt))
			}
		}
		j.report(o, h, false, says)
	}
}
