#!/usr/bin/env bash
# Makes the manager's Secret for one MultiKueue worker from a token of the worker's ServiceAccount
# (the one MultiKueueWorker synthesizes, bound to the least-privilege ClusterRole).
#
#   scripts/multikueue-kubeconfig.sh --worker-context CTX --manager-context CTX --cluster worker-1 \
#     [--secret multikueue-worker-1] [--service-account multikueue-manager] [--namespace kueue-system] \
#     [--server https://worker-api:6443] [--duration 720h] [--dry-run]
#
# The kubeconfig goes straight from kubectl into the manager's API (kubectl apply -f -), never to a file
# and never into dist/. --dry-run prints the Secret with the token replaced by <redacted>.
# Tokens from `kubectl create token` expire (--duration, capped by the worker API server's
# --service-account-max-token-expiration): run the script again before then to rotate.
set -euo pipefail

worker_ctx=""; manager_ctx=""; cluster=""; secret=""; sa="multikueue-manager"; ns="kueue-system"; server=""; duration="720h"; dry=0
while [ $# -gt 0 ]; do
  case "$1" in
    --worker-context) worker_ctx="$2"; shift 2 ;;
    --manager-context) manager_ctx="$2"; shift 2 ;;
    --cluster) cluster="$2"; shift 2 ;;
    --secret) secret="$2"; shift 2 ;;
    --service-account) sa="$2"; shift 2 ;;
    --namespace) ns="$2"; shift 2 ;;
    --server) server="$2"; shift 2 ;;
    --duration) duration="$2"; shift 2 ;;
    --dry-run) dry=1; shift ;;
    -h|--help) sed -n '2,13p' "$0"; exit 0 ;;
    *) echo "multikueue-kubeconfig.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
[ -n "$worker_ctx" ] || { echo "multikueue-kubeconfig.sh: --worker-context is required (the kubectl context of the worker cluster)" >&2; exit 2; }
[ -n "$manager_ctx" ] || { echo "multikueue-kubeconfig.sh: --manager-context is required (the kubectl context of the manager cluster)" >&2; exit 2; }
[ -n "$cluster" ] || { echo "multikueue-kubeconfig.sh: --cluster is required (the worker's MultiKueueCluster name)" >&2; exit 2; }
secret="${secret:-multikueue-$cluster}"

wk() { kubectl --context "$worker_ctx" "$@"; }
if ! wk -n "$ns" get serviceaccount "$sa" >/dev/null 2>&1; then
  echo "multikueue-kubeconfig.sh: ServiceAccount $ns/$sa not found on the worker ($worker_ctx). Fix: apply dist/workers/$cluster/ there first." >&2
  exit 1
fi
# The worker's API address and CA as the worker context sees them; --server when the manager reaches it elsewhere.
wcluster=$(kubectl config view -o jsonpath="{.contexts[?(@.name==\"$worker_ctx\")].context.cluster}")
[ -n "$server" ] || server=$(kubectl config view -o jsonpath="{.clusters[?(@.name==\"$wcluster\")].cluster.server}")
ca=$(kubectl config view --raw -o jsonpath="{.clusters[?(@.name==\"$wcluster\")].cluster.certificate-authority-data}")
if [ -z "$ca" ]; then
  ca_file=$(kubectl config view --raw -o jsonpath="{.clusters[?(@.name==\"$wcluster\")].cluster.certificate-authority}")
  [ -n "$ca_file" ] && ca=$(base64 -w0 < "$ca_file")
fi
[ -n "$server" ] && [ -n "$ca" ] || { echo "multikueue-kubeconfig.sh: no server/CA for context $worker_ctx in your kubeconfig. Fix: pass --server and use a context with certificate-authority(-data)." >&2; exit 1; }

if [ "$dry" = 1 ]; then token="<redacted>"; else token=$(wk -n "$ns" create token "$sa" --duration "$duration"); fi
kubeconfig=$(cat <<KC
apiVersion: v1
kind: Config
clusters:
- name: $cluster
  cluster:
    server: $server
    certificate-authority-data: $ca
users:
- name: $cluster-$sa
  user:
    token: $token
contexts:
- name: $cluster
  context:
    cluster: $cluster
    user: $cluster-$sa
current-context: $cluster
KC
)
# kubectl builds the Secret (base64 and all) on stdin: the token never touches the filesystem.
secret_yaml() { kubectl create secret generic "$secret" -n "$ns" --from-file=kubeconfig=/dev/stdin --dry-run=client -o yaml <<<"$kubeconfig"; }
if [ "$dry" = 1 ]; then
  # Readable (stringData), and the token is "<redacted>".
  printf 'apiVersion: v1\nkind: Secret\nmetadata:\n  name: %s\n  namespace: %s\nstringData:\n  kubeconfig: |\n' "$secret" "$ns"
  sed 's/^/    /' <<<"$kubeconfig"
  exit 0
fi
secret_yaml | kubectl --context "$manager_ctx" apply -f - >/dev/null
echo "Secret $ns/$secret on $manager_ctx now holds the kubeconfig of $sa on $worker_ctx (token valid $duration)."
