/** The path of the pinned LTS node binary (BENCH_NODE when set); see lts-node.js. */
export function ltsNode(): string;
