// Preloaded into a broker by bench/heap-partitions.ts (`node --import`): on SIGWINCH it writes one
// line to stderr, `memory-report {...}`, with process.memoryUsage() and V8's heap spaces (used and
// committed bytes), so the bench can tell live objects from heap the process holds but does not use.
import v8 from 'node:v8';

process.on('SIGWINCH', () => {
  const spaces = Object.fromEntries(v8.getHeapSpaceStatistics().map((s) => [s.space_name, { used: s.space_used_size, size: s.space_size, physical: s.physical_space_size }]));
  process.stderr.write(`memory-report ${JSON.stringify({ ...process.memoryUsage(), spaces })}\n`);
});
