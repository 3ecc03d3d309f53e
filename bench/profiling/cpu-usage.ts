/**
 * Where the machine's CPU went during a window: per process (from /proc/<pid>/stat, all threads)
 * and for the whole box (/proc/stat, including time stolen by the hypervisor). Linux only.
 */
import { readdir, readFile } from 'node:fs/promises';

/** USER_HZ: /proc times are in 1/100 s on every Linux this runs on. */
const TICKS_PER_S = 100;

export interface CpuSnapshot {
  atMs: number;
  /** pid → [command name, CPU ticks]. */
  processes: Map<number, [string, number]>;
  /** Aggregate /proc/stat cpu line: user nice system idle iowait irq softirq steal. */
  machine: number[];
}

export async function cpuSnapshot(): Promise<CpuSnapshot> {
  const processes = new Map<number, [string, number]>();
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = await readFile(`/proc/${entry}/stat`, 'utf8');
      const close = stat.lastIndexOf(')');
      const name = stat.slice(stat.indexOf('(') + 1, close);
      const fields = stat.slice(close + 2).split(' ');
      // After "pid (comm) ": state is field 0, utime 11, stime 12.
      processes.set(Number(entry), [name, Number(fields[11]) + Number(fields[12])]);
    } catch {
      // Gone in between.
    }
  }
  const cpuLine = (await readFile('/proc/stat', 'utf8')).split('\n')[0] ?? '';
  return { atMs: performance.now(), processes, machine: cpuLine.split(/\s+/).slice(1, 9).map(Number) };
}

/**
 * CPU cores used per named group between two snapshots. `groups` maps a pid to a label; other
 * processes count under their command name (every `postgres` backend adds up under one).
 */
export function cpuUsage(before: CpuSnapshot, after: CpuSnapshot, groups: Map<number, string>): string[] {
  const seconds = (after.atMs - before.atMs) / 1000;
  const cores = new Map<string, number>();
  for (const [pid, [name, ticks]] of after.processes) {
    const delta = ticks - (before.processes.get(pid)?.[1] ?? 0);
    if (delta <= 0) continue;
    const label = groups.get(pid) ?? name;
    cores.set(label, (cores.get(label) ?? 0) + delta / TICKS_PER_S / seconds);
  }
  const machineDelta = after.machine.map((value, index) => value - (before.machine[index] ?? 0));
  const total = machineDelta.reduce((sum, value) => sum + value, 0) || 1;
  const share = (index: number) => `${(((machineDelta[index] ?? 0) / total) * 100).toFixed(0)}%`;
  return [
    `machine: user ${share(0)}, system ${share(2)}, softirq ${share(6)}, idle ${share(3)}, steal ${share(7)}`,
    ...[...cores.entries()]
      .sort((left, right) => right[1] - left[1])
      .filter(([, used]) => used >= 0.01)
      .map(([label, used]) => `${used.toFixed(2)} cores  ${label}`),
  ];
}
