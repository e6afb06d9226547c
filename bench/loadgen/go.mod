module cdk8s-kueue-ray/bench/loadgen

go 1.22
