/** The vendor folder: $KUEUE_RAY_VENDOR_DIR, else ../shared/vendor beside the repo; undefined when missing. */
export function findVendorDir(): string | undefined;
/** The vendor folder; throws naming where it looked and what to set. `what` says who needs it. */
export function vendorDir(what: string): string;
