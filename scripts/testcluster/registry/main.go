// The CNCF distribution registry for the test node: upstream's cmd/registry main with the storage drivers the node
// uses (filesystem; inmemory beside it), not the Azure, GCS, S3 and CloudFront ones, whose SDKs were most of its
// compile time. The node's registries store on the filesystem (scripts/cluster/configs.ts, registryConfig).
package main

import (
	"github.com/distribution/distribution/v3/registry"
	_ "github.com/distribution/distribution/v3/registry/auth/htpasswd"
	_ "github.com/distribution/distribution/v3/registry/auth/silly"
	_ "github.com/distribution/distribution/v3/registry/auth/token"
	_ "github.com/distribution/distribution/v3/registry/proxy"
	_ "github.com/distribution/distribution/v3/registry/storage/driver/filesystem"
	_ "github.com/distribution/distribution/v3/registry/storage/driver/inmemory"
	_ "github.com/distribution/distribution/v3/registry/storage/driver/middleware/redirect"
	_ "github.com/distribution/distribution/v3/registry/storage/driver/middleware/rewrite"
)

func main() {
	// As upstream's: the two registered commands exit non-zero themselves on failure.
	registry.RootCmd.Execute() //nolint:errcheck
}
