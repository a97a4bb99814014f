#!/usr/bin/env node
/**
 * The `docker compose` subcommands other than exec (see ./docker): hands its arguments to the
 * harness's control listener (SARAMA_COMPOSE_CONTROL, tools/peers/sarama.mjs), prints what it
 * answers and exits with its status.
 */
const url = process.env.SARAMA_COMPOSE_CONTROL;
if (!url) {
  console.error('docker compose (stand-in): SARAMA_COMPOSE_CONTROL is not set: run through tools/peers/sarama.mjs');
  process.exit(1);
}
try {
  const res = await fetch(`${url}/compose`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ args: process.argv.slice(2) }),
    signal: AbortSignal.timeout(15 * 60_000),
  });
  const { code, stdout, stderr } = await res.json();
  if (stdout) process.stdout.write(stdout);
  if (stderr) process.stderr.write(stderr);
  process.exitCode = code;
} catch (e) {
  console.error(`docker compose (stand-in): the harness did not answer: ${e instanceof Error ? e.message : e}`);
  process.exitCode = 1;
}
