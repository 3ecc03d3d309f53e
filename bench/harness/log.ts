/** The harness's progress lines on stdout, and the one-line form of an error for tables and notes. */
export function log(line: string): void {
  process.stdout.write(`[bench] ${line}\n`);
}

export function firstLine(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split('\n')[0] ?? 'unknown error';
}
