/** Runs the `samsa` CLI from the TypeScript sources against a broker, with a hard deadline. */
import { spawn } from 'node:child_process';
import { join } from 'node:path';

const SAMSA = join(process.cwd(), 'src', 'cli', 'samsa.ts');

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `samsa ARGS --bootstrap BOOTSTRAP`; rejects (after killing it) when it runs past `timeoutMs`. */
export function runSamsa(bootstrap: string, args: string[], timeoutMs = 20000): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', SAMSA, ...args, '--bootstrap', bootstrap], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => { stdout += d; });
    child.stderr.on('data', (d) => { stderr += d; });
    const timer = setTimeout(() => { child.kill('SIGKILL'); reject(new Error(`samsa ${args.join(' ')} timed out; ${stderr}`)); }, timeoutMs);
    child.on('exit', (code) => { clearTimeout(timer); resolve({ code, stdout, stderr }); });
  });
}
