// CoreDNS for the test node: upstream's own main (coredns.go) with the plugins the node's Corefile uses
// (scripts/cluster/configs.ts) and the rest of kubeadm's default Corefile (forward, prometheus, log), in place of
// core/plugin's every plugin. CoreDNS selects plugins at compile time (plugin.cfg); the cloud backends left out
// (route53, azure, clouddns, trace, etcd, nomad, ...) were most of its compile time.
package main

import (
	"github.com/coredns/coredns/coremain"
	_ "github.com/coredns/coredns/plugin/cache"
	_ "github.com/coredns/coredns/plugin/errors"
	_ "github.com/coredns/coredns/plugin/forward"
	_ "github.com/coredns/coredns/plugin/health"
	_ "github.com/coredns/coredns/plugin/kubernetes"
	_ "github.com/coredns/coredns/plugin/loadbalance"
	_ "github.com/coredns/coredns/plugin/log"
	_ "github.com/coredns/coredns/plugin/loop"
	_ "github.com/coredns/coredns/plugin/metrics"
	_ "github.com/coredns/coredns/plugin/ready"
	_ "github.com/coredns/coredns/plugin/reload"
)

func main() {
	coremain.Run()
}
