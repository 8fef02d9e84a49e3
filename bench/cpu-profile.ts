// The functions with the most self time in V8 CPU profiles (`node --cpu-prof`, or a bench run with
// BENCH_CPU_PROF=<dir>), idle and garbage collection shown apart.
//   node --import @swc-node/register/esm-register bench/cpu-profile.ts <file.cpuprofile> [top]
import { readFile } from 'node:fs/promises';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** Self time per function (name and place), in milliseconds, most first. */
export function selfTimes(profile: Profile): { name: string; ms: number }[] {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const totals = new Map<string, number>();
  profile.samples.forEach((id, index) => {
    const frame = byId.get(id)!.callFrame;
    const place = frame.url ? ` ${frame.url.replace(/^.*\/(node_modules|dist)\//, '$1/')}:${frame.lineNumber + 1}` : '';
    const name = `${frame.functionName || '(anonymous)'}${place}`;
    totals.set(name, (totals.get(name) ?? 0) + (profile.timeDeltas[index] ?? 0) / 1000);
  });
  return [...totals].map(([name, ms]) => ({ name, ms })).sort((a, b) => b.ms - a.ms);
}

const [file, top = '15'] = process.argv.slice(2);
if (file) {
  const rows = selfTimes(JSON.parse(await readFile(file, 'utf8')) as Profile);
  const total = rows.reduce((sum, row) => sum + row.ms, 0);
  const busy = rows.filter((row) => !row.name.startsWith('(idle)')).reduce((sum, row) => sum + row.ms, 0);
  console.log(`${file}: ${Math.round(total)} ms sampled, ${Math.round(busy)} ms busy`);
  console.log('| self ms | % of busy | function |\n|---|---|---|');
  for (const row of rows.filter((r) => !r.name.startsWith('(idle)')).slice(0, Number(top))) {
    console.log(`| ${Math.round(row.ms)} | ${((100 * row.ms) / busy).toFixed(1)} | ${row.name} |`);
  }
}
