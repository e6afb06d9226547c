"""The examples app for KUEUE_VERSION / KUBERAY_VERSION (default: the library's pair), with the Kueue
and KubeRay installs read from local copies so synth stays offline, and the project's controller
(image CONTROLLER_IMAGE, default the AdmissionController's). A port of examples/main.ts; it reads the
same environment variables. Run: python examples/python/main.py (with the cdk8s-kueue-ray wheel installed)."""
import os
import sys
from pathlib import Path

from cdk8s import App
from cdk8s_kueue_ray import KueueRayVersions

from app import SCENARIOS, build_examples


def default_cache_dir() -> str:
    # The project's cache rule (the install's defaultCacheDir): CDK8S_KUEUE_RAY_CACHE or ~/.cache/cdk8s-kueue-ray.
    return os.environ.get("CDK8S_KUEUE_RAY_CACHE", os.path.join(Path.home(), ".cache", "cdk8s-kueue-ray"))


def main() -> None:
    # The library's default pair, read from an empty app rather than repeated here.
    defaults = KueueRayVersions.of(App())
    kueue = os.environ.get("KUEUE_VERSION", defaults.kueue_version)
    kube_ray = os.environ.get("KUBERAY_VERSION", defaults.kube_ray_version)
    scenarios = os.environ["EXAMPLES"].split(",") if os.environ.get("EXAMPLES") else SCENARIOS

    # Local copies: KUEUE_MANIFEST / KUBERAY_CRD_DIR, else the pinned upstream data in ../shared/vendor
    # (beside the repo: this file is <repo>/examples/python/main.py).
    repo = Path(__file__).resolve().parents[2]
    vendor = next(
        (d for d in (os.environ.get("KUEUE_RAY_VENDOR_DIR"), str(repo.parent / "shared" / "vendor"))
         if d and os.path.exists(os.path.join(d, "README.md"))),
        None,
    )
    rendered = os.path.join(default_cache_dir(), "releases-rendered", f"kueue-{kueue}", "manifests.yaml")
    vendored = vendor and os.path.join(vendor, "kueue", kueue, "manifests.yaml")
    # v0.17.0 is not vendored: scripts/testcluster/build.sh renders it from the module's config/.
    kueue_manifest = os.environ.get("KUEUE_MANIFEST", vendored if vendored and os.path.exists(vendored) else rendered)
    crd_bases = vendor and os.path.join(vendor, "kuberay", kube_ray, "ray-operator", "config", "crd", "bases")
    kube_ray_crd_dir = os.environ.get("KUBERAY_CRD_DIR", crd_bases)
    for what, p, env, version in (
        ("Kueue release manifests.yaml", kueue_manifest, "KUEUE_MANIFEST", kueue),
        ("KubeRay CRD folder", kube_ray_crd_dir, "KUBERAY_CRD_DIR", kube_ray),
    ):
        if not p or not os.path.exists(p):
            sys.exit(f"examples: no local {what} for {version} (looked at {p or 'shared/vendor'}); "
                     f"set {env} to a local copy")

    # The controller image: build it from the Dockerfile and push it where the cluster can pull it.
    build_examples(
        outdir=os.environ.get("CDK8S_OUTDIR", "dist"),
        kueue=kueue,
        kube_ray=kube_ray,
        scenarios=scenarios,
        kueue_manifest=kueue_manifest,
        kube_ray_crd_dir=kube_ray_crd_dir,
        controller=True,
        controller_image=os.environ.get("CONTROLLER_IMAGE"),
    ).synth()


if __name__ == "__main__":
    main()
