// kuberay-validate runs, for one KubeRay version, the checks the KubeRay operator's reconcilers run before
// they refuse a RayCluster, RayJob or RayService (a Warning event Invalid*; from v1.5 the RayJob also gets
// status ValidationFailed, from v1.6 the RayService a ValidationFailed condition). It calls the pinned
// module's own functions (github.com/ray-project/kuberay/ray-operator/controllers/ray/utils); which ones,
// and in which order, is version-specific and lives in the adapter file the build copies beside this one
// (scripts/kuberay-validate/adapters, picked by scripts/testcluster/build.sh).
//
// Protocol: one JSON line in per object, `{"id": "...", "object": {...}}`, one JSON line out, in order:
//
//	{"id": "...", "errors": ["..."], "check": "utils.ValidateRayJobSpec"}  refused: the first failing check
//	{"id": "...", "errors": []}                                           accepted
//	{"id": "...", "errors": [], "decodeError": "..."}                     the object does not decode
//	{"id": "...", "errors": [], "skipped": "..."}                         the operator does not validate it
//
// The object must be what the operator reads: after the API server's defaulting and pruning. A check that
// panics (e.g. an unset field the CRD would default) is reported with "panic": true and its message in
// errors: controller-runtime recovers the panic and requeues, so the object never progresses.
//
// Flags: --feature-gates as the operator takes it (default: the operator's own defaults for the version).
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"

	rayv1 "github.com/ray-project/kuberay/ray-operator/apis/ray/v1"
	"github.com/ray-project/kuberay/ray-operator/controllers/ray/utils"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	sigsjson "sigs.k8s.io/json"
)

// Stamped by the build (-X main.kubeRayVersion=...).
var kubeRayVersion = "unknown"

type check struct {
	name string
	run  func() error
}

type request struct {
	ID     string          `json:"id"`
	Object json.RawMessage `json:"object"`
}

type result struct {
	ID          string   `json:"id"`
	Errors      []string `json:"errors"`
	Check       string   `json:"check,omitempty"`
	DecodeError string   `json:"decodeError,omitempty"`
	Panic       bool     `json:"panic,omitempty"`
	Skipped     string   `json:"skipped,omitempty"`
}

// runChecks runs the checks in order and stops at the first error, as each reconciler returns on it.
func runChecks(checks []check, prefix string, out *result) bool {
	for _, c := range checks {
		err, panicked := safeRun(c.run)
		if err != nil {
			out.Errors = append(out.Errors, prefix+err.Error())
			out.Check = c.name
			out.Panic = panicked
			return false
		}
	}
	return true
}

func safeRun(f func() error) (err error, panicked bool) {
	defer func() {
		if r := recover(); r != nil {
			err, panicked = fmt.Errorf("panic: %v", r), true
		}
	}()
	return f(), false
}

// derivedCluster is the RayCluster a RayJob or RayService creates, as far as the RayCluster reconciler's
// checks read it: a generated name (utils.GenerateRayClusterName), the parent's labels plus the
// ray.io/originated-from-* labels, the parent's annotations and a copy of the embedded spec. What the
// parent's reconciler adds on top (RayService hash annotations; in SidecarMode a submitter container after
// the Ray container and restartPolicy Never) is not read by those checks.
func derivedCluster(crd utils.CRDType, name string, labels, annotations map[string]string, spec *rayv1.RayClusterSpec) *rayv1.RayCluster {
	rc := &rayv1.RayCluster{Spec: *spec.DeepCopy()}
	rc.Name = utils.GenerateRayClusterName(name)
	rc.Labels = map[string]string{}
	for k, v := range labels {
		rc.Labels[k] = v
	}
	rc.Labels[utils.RayOriginatedFromCRNameLabelKey] = name
	rc.Labels[utils.RayOriginatedFromCRDLabelKey] = utils.RayOriginatedFromCRDLabelValue(crd)
	rc.Annotations = map[string]string{}
	for k, v := range annotations {
		rc.Annotations[k] = v
	}
	return rc
}

// validateRayCluster is rayClusterReconcile up to its checks. Its setDefaults (empty rayStartParams maps
// where nil) changes nothing the checks read, so it is not repeated here.
func validateRayCluster(rc *rayv1.RayCluster, prefix string, out *result) bool {
	if m := utils.ManagedByExternalController(rc.Spec.ManagedBy); m != nil {
		out.Skipped = prefix + "spec.managedBy is " + *m + ": the RayCluster reconciler skips it"
		return false
	}
	return runChecks(rayClusterChecks(rc), prefix, out)
}

func validate(kind string, raw []byte, out *result) {
	switch kind {
	case "RayCluster":
		var rc rayv1.RayCluster
		if !decode(raw, &rc, out) {
			return
		}
		validateRayCluster(&rc, "", out)
	case "RayJob":
		var job rayv1.RayJob
		if !decode(raw, &job, out) {
			return
		}
		// RayJob Reconcile: skipped when managed elsewhere; deletion is handled before the checks.
		if m := utils.ManagedByExternalController(job.Spec.ManagedBy); m != nil {
			out.Skipped = "spec.managedBy is " + *m + ": the RayJob reconciler skips it"
			return
		}
		if !job.DeletionTimestamp.IsZero() {
			out.Skipped = "metadata.deletionTimestamp is set: the RayJob reconciler only cleans up"
			return
		}
		if !runChecks(rayJobChecks(&job), "", out) {
			return
		}
		// Then (once not suspended) getOrCreateRayClusterInstance creates the RayCluster, unless the job
		// runs on an existing cluster (clusterSelector), and the RayCluster reconciler checks it.
		if len(job.Spec.ClusterSelector) == 0 && job.Spec.RayClusterSpec != nil {
			rc := derivedCluster(utils.RayJobCRD, job.Name, job.Labels, job.Annotations, job.Spec.RayClusterSpec)
			validateRayCluster(rc, "the RayCluster this RayJob creates: ", out)
		}
	case "RayService":
		var svc rayv1.RayService
		if !decode(raw, &svc, out) {
			return
		}
		if why := rayServiceSkip(&svc); why != "" {
			out.Skipped = why
			return
		}
		if !runChecks(rayServiceChecks(&svc), "", out) {
			return
		}
		rc := derivedCluster(utils.RayServiceCRD, svc.Name, svc.Labels, svc.Annotations, &svc.Spec.RayClusterSpec)
		validateRayCluster(rc, "the RayCluster this RayService creates: ", out)
	default:
		out.DecodeError = fmt.Sprintf("kind %q is not one this oracle validates (RayCluster, RayJob, RayService)", kind)
	}
}

// decode is case-sensitive and keeps unknown fields out, as the operator's client decodes
// (k8s.io/apimachinery's JSON serializer uses sigs.k8s.io/json the same way).
func decode(raw []byte, into any, out *result) bool {
	if err := sigsjson.UnmarshalCaseSensitivePreserveInts(raw, into); err != nil {
		out.DecodeError = err.Error()
		return false
	}
	return true
}

func handle(line []byte) result {
	out := result{Errors: []string{}}
	var req request
	if err := json.Unmarshal(line, &req); err != nil {
		out.DecodeError = "input line is not {\"id\": string, \"object\": {...}}: " + err.Error()
		return out
	}
	out.ID = req.ID
	var tm struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
	}
	if err := json.Unmarshal(req.Object, &tm); err != nil {
		out.DecodeError = "object is not a JSON object: " + err.Error()
		return out
	}
	if tm.APIVersion != rayv1.GroupVersion.String() {
		out.DecodeError = fmt.Sprintf("apiVersion %q: KubeRay %s serves %s", tm.APIVersion, kubeRayVersion, rayv1.GroupVersion.String())
		return out
	}
	validate(tm.Kind, req.Object, &out)
	return out
}

func main() {
	gates := flag.String("feature-gates", "", "as the operator's --feature-gates, e.g. RayJobDeletionPolicy=true (default: the operator's defaults)")
	version := flag.Bool("version", false, "print the KubeRay version this binary was built from")
	flag.Parse()
	if *version {
		fmt.Println(kubeRayVersion)
		return
	}
	// The operator's main.go sets its gates the same way.
	if err := utilfeature.DefaultMutableFeatureGate.Set(*gates); err != nil {
		fmt.Fprintf(os.Stderr, "kuberay-validate: --feature-gates: %v\n", err)
		os.Exit(2)
	}
	in := bufio.NewReaderSize(os.Stdin, 1<<20)
	w := bufio.NewWriterSize(os.Stdout, 1<<20)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for {
		line, err := in.ReadBytes('\n')
		if len(line) > 0 && !(len(line) == 1 && line[0] == '\n') {
			if e := enc.Encode(handle(line)); e != nil {
				fmt.Fprintf(os.Stderr, "kuberay-validate: write: %v\n", e)
				os.Exit(1)
			}
		}
		// Flush when the caller has sent nothing more yet, so a batch streams and a single line answers.
		if in.Buffered() == 0 || err != nil {
			if e := w.Flush(); e != nil {
				os.Exit(1)
			}
		}
		if err == io.EOF {
			return
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "kuberay-validate: read: %v\n", err)
			os.Exit(1)
		}
	}
}
