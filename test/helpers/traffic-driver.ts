import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';

/**
 * A traffic script kept running between drives (`SCRIPT --serve`: one JSON array of arguments a
 * line on stdin, answered by `done` or `failed: WHY`): a test that drives forty servers pays
 * for Python and boto3's import once, not forty times. One drive at a time, each bounded.
 */
export class TrafficDriver {
  private readonly child: ChildProcessWithoutNullStreams;
  private readonly answers: string[] = [];
  private waiting?: (line: string | undefined) => void;
  private queue: Promise<unknown> = Promise.resolve();
  private stderr = '';
  private exited = false;

  constructor(script: string) {
    this.child = spawn('python3', [script, '--serve'], { stdio: 'pipe' });
    createInterface({ input: this.child.stdout }).on('line', (line) => this.hear(line));
    // What the script prints of refused calls: kept short, for the message of a failed drive.
    this.child.stderr.on('data', (d: Buffer) => {
      this.stderr = (this.stderr + d.toString()).slice(-2000);
    });
    this.child.on('exit', () => {
      this.exited = true;
      this.hear(undefined);
    });
  }

  private hear(line: string | undefined): void {
    const waiting = this.waiting;
    this.waiting = undefined;
    if (waiting) waiting(line);
    else if (line !== undefined) this.answers.push(line);
  }

  private next(): Promise<string | undefined> {
    const ready = this.answers.shift();
    if (ready !== undefined || this.exited) return Promise.resolve(ready);
    return new Promise((resolve) => {
      this.waiting = resolve;
    });
  }

  /** Sends one traffic with `args`; rejects on a failure, the script's end, or after `timeoutMs`. */
  drive(args: string[], timeoutMs = 60_000): Promise<void> {
    const turn = this.queue.then(async () => {
      this.stderr = '';
      this.child.stdin.write(`${JSON.stringify(args)}\n`);
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<'timeout'>((resolve) => {
        timer = setTimeout(() => resolve('timeout'), timeoutMs);
      });
      const answer = await Promise.race([this.next(), timeout]);
      clearTimeout(timer);
      if (answer === 'timeout') {
        this.child.kill();
        throw new Error(`the traffic script did not end its drive within ${timeoutMs} ms: ${this.stderr}`);
      }
      if (answer !== 'done') {
        throw new Error(`the traffic script ${answer ?? 'exited'}: ${this.stderr}`);
      }
    });
    this.queue = turn.catch(() => {});
    return turn;
  }

  async close(): Promise<void> {
    if (this.exited) return;
    const exited = new Promise((resolve) => this.child.once('exit', resolve));
    this.child.stdin.end();
    await exited;
  }
}
