/** One JSON log line on standard output, as the controller and the CLI's error path write them. */
export function log(entry: Record<string, unknown>): void {
  process.stdout.write(`${JSON.stringify({ ts: new Date().toISOString(), ...entry })}\n`);
}
