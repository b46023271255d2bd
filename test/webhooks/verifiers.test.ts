import { execFileSync, spawnSync } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { verifyWebhookSignature } from '../../src/webhooks/verify.js';
import { ROOT } from '../helpers/cli-process.js';
import { skipBecause, skipWithoutToolchain } from '../helpers/skip.js';

// verifiers/ holds a signature verifier in Python, Go, Java, C# and JavaScript, and the known-answer vectors every one
// of them must pass (vectors.json); the package ships the folder, and docs/webhooks.md shows each file as it is. Each
// verifier is compiled from its file and run once over every vector (a correct delivery, a changed body, a wrong
// signature, a stale timestamp, the tolerance's edge); the vectors themselves are worked out again here with
// node:crypto, so a wrong vector fails too. A language whose toolchain is missing says so as a skip with its reason;
// node is always there, and python3 and a JDK are on the CI machine, so those three never skip there.

const VERIFIERS = join(ROOT, 'verifiers');
const file = (path: string) => readFileSync(join(VERIFIERS, path), 'utf8');

interface Vectors {
  secret: string;
  now: number;
  tolerance: number;
  body: string;
  cases: { name: string; header: string; body?: string; valid: boolean }[];
}

const VECTORS = JSON.parse(file('vectors.json')) as Vectors;
const CASES = VECTORS.cases.map((c) => ({ ...c, body: c.body ?? VECTORS.body }));

/** What each case must answer, worked out with node:crypto and the spec's rule, not with any verifier. */
function expectedValidity(c: (typeof CASES)[number]): boolean {
  const [, t, v1] = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(c.header)!;
  const hmac = createHmac('sha256', Buffer.from(VECTORS.secret, 'utf8')).update(`${t}.${c.body}`).digest('hex');
  return hmac === v1 && Math.abs(VECTORS.now - Number(t)) <= VECTORS.tolerance;
}

/** The harness input: the secret, now, the tolerance, then one `header<TAB>base64 body` line per case. */
const INPUT = [
  VECTORS.secret,
  String(VECTORS.now),
  String(VECTORS.tolerance),
  ...CASES.map((c) => `${c.header}\t${Buffer.from(c.body, 'utf8').toString('base64')}`),
  '',
].join('\n');
const EXPECTED = CASES.map((c) => String(c.valid));

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** A work folder holding `copied` (verifiers/ path -> its path here) and the harness files. */
function workDir(copied: Record<string, string>, written: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'verifier-'));
  dirs.push(dir);
  const place = (to: string) => (mkdirSync(dirname(join(dir, to)), { recursive: true }), join(dir, to));
  for (const [from, to] of Object.entries(copied)) copyFileSync(join(VERIFIERS, from), place(to));
  for (const [to, text] of Object.entries(written)) writeFileSync(place(to), text);
  return dir;
}

/** Whether a command runs here (`--version` or the like answers). */
function has(command: string, args: string[] = ['--version']): boolean {
  return spawnSync(command, args, { stdio: 'ignore' }).status === 0;
}

/** Runs the harness once over every vector; its answers, one per case. */
function answers(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = process.env): string[] {
  return execFileSync(command, args, { cwd, input: INPUT, encoding: 'utf8', env, timeout: 120_000 })
    .trim()
    .split('\n')
    .map((l) => l.trim());
}

describe('verifiers/vectors.json', () => {
  it('covers a correct delivery, a changed body, a wrong signature and a stale timestamp', () => {
    expect(CASES.map((c) => c.valid)).toEqual([true, false, false, false, true]);
    expect(CASES[1]!.body).not.toBe(VECTORS.body);
    expect(CASES.map((c) => c.header.slice(0, 12))).toContain(`t=${VECTORS.now - VECTORS.tolerance - 1}`);
  });

  it.each(CASES.map((c) => [c.name, c] as const))('%s: its answer agrees with node:crypto', (_name, c) => {
    expect(expectedValidity(c)).toBe(c.valid);
  });

  it('the wrong signature is the same t and body signed with the secret docs/webhooks.md names', () => {
    const wrong = CASES[2]!;
    const other = createHmac('sha256', `whsec_${'A'.repeat(32)}`)
      .update(`1767225600.${VECTORS.body}`)
      .digest('hex');
    expect(wrong.header).toBe(`t=1767225600,v1=${other}`);
  });

  it('the package verifier (card-issuing-sandbox/webhooks) answers every vector', () => {
    const got = CASES.map(
      (c) =>
        verifyWebhookSignature({
          rawBody: c.body,
          header: c.header,
          secret: VECTORS.secret,
          now: VECTORS.now,
          toleranceSeconds: VECTORS.tolerance,
        }).ok,
    );
    expect(got.map(String)).toEqual(EXPECTED);
  });
});

describe('the verifiers of verifiers/, each against vectors.json', () => {
  it('JavaScript: verify(secret, signatureHeader, rawBody, nowSeconds, toleranceSeconds) -> boolean', () => {
    // node runs this suite: never a skip.
    const harness = `import { readFileSync } from 'node:fs';
import { createHmac } from 'node:crypto';
import { verify } from './webhook-verifier.mjs';

const lines = readFileSync(0, 'utf8').split('\\n');
const [secret, now, tolerance] = [lines[0], Number(lines[1]), Number(lines[2])];
for (const line of lines.slice(3).filter(Boolean)) {
  const [header, body] = line.split('\\t');
  console.log(String(verify(secret, header, Buffer.from(body, 'base64'), now, tolerance)));
}
// The defaults: now from the system clock, a tolerance of 300 s, and a string body.
const t = Math.floor(Date.now() / 1000);
const fresh = \`t=\${t},v1=\${createHmac('sha256', secret).update(\`\${t}.{}\`).digest('hex')}\`;
console.log(String(verify(secret, fresh, '{}')));
console.log(String(verify(secret, fresh.replace(\`t=\${t}\`, \`t=\${t - 301}\`), '{}')));
`;
    const dir = workDir({ 'javascript/webhook-verifier.mjs': 'webhook-verifier.mjs' }, { 'harness.mjs': harness });
    expect(answers(process.execPath, ['harness.mjs'], dir)).toEqual([...EXPECTED, 'true', 'false']);
  });

  it('Python: verify(secret, signature_header, raw_body, now=None, tolerance=300) -> bool', (ctx) => {
    // python3 is on every machine CI runs on: a skip there fails.
    if (!has('python3')) skipBecause(ctx, 'Python verifier not run: no python3 on this machine');
    expect(file('python/webhook_verifier.py')).toMatch(
      /^def verify\(secret, signature_header, raw_body, now=None, tolerance=300\) -> bool:$/m,
    );
    const harness = [
      'import base64, sys, time, hmac, hashlib',
      'from webhook_verifier import verify',
      'lines = sys.stdin.read().split("\\n")',
      'secret, now, tolerance = lines[0], int(lines[1]), int(lines[2])',
      'for line in filter(None, lines[3:]):',
      '    header, body = line.split("\\t")',
      '    print(str(verify(secret, header, base64.b64decode(body), now=now, tolerance=tolerance)).lower())',
      // The defaults: now from the system clock, a tolerance of 300 s, and a str body.
      't = int(time.time())',
      'fresh = "t=%d,v1=%s" % (t, hmac.new(secret.encode(), b"%d.{}" % t, hashlib.sha256).hexdigest())',
      'print(str(verify(secret, fresh, "{}")).lower())',
      'print(str(verify(secret, fresh.replace("t=%d" % t, "t=%d" % (t - 301)), "{}")).lower())',
    ].join('\n');
    const dir = workDir({ 'python/webhook_verifier.py': 'webhook_verifier.py' }, { 'harness.py': harness });
    const out = answers('python3', ['harness.py'], dir, { ...process.env, PYTHONDONTWRITEBYTECODE: '1' });
    expect(out).toEqual([...EXPECTED, 'true', 'false']);
  });

  it('Go: webhook.Verify(secret, signatureHeader, rawBody, now, tolerance) bool', (ctx) => {
    if (!has('go', ['version'])) skipWithoutToolchain(ctx, 'Go verifier not run: no `go` on this machine');
    const harness = `package main

import (
	"bufio"
	"encoding/base64"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"verifiertest/webhook"
)

func main() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<20)
	var lines []string
	for in.Scan() {
		lines = append(lines, in.Text())
	}
	now, _ := strconv.ParseInt(lines[1], 10, 64)
	tolerance, _ := strconv.ParseInt(lines[2], 10, 64)
	for _, line := range lines[3:] {
		if line == "" {
			continue
		}
		parts := strings.Split(line, "\\t")
		body, _ := base64.StdEncoding.DecodeString(parts[1])
		fmt.Println(webhook.Verify(lines[0], parts[0], body, time.Unix(now, 0), time.Duration(tolerance)*time.Second))
	}
}
`;
    const dir = workDir(
      { 'go/webhook.go': 'webhook/webhook.go' },
      { 'main.go': harness, 'go.mod': 'module verifiertest\n\ngo 1.18\n' },
    );
    // Nothing is fetched: no module proxy, no newer toolchain.
    const env = { ...process.env, GOPROXY: 'off', GOTOOLCHAIN: 'local', GOFLAGS: '-mod=mod', CGO_ENABLED: '0' };
    execFileSync('go', ['build', '-o', 'verify', '.'], { cwd: dir, env, stdio: 'pipe', timeout: 300_000 });
    expect(answers(join(dir, 'verify'), [], dir)).toEqual(EXPECTED);
  });

  it('Java: WebhookVerifier.verify(secret, signatureHeader, rawBody, nowSeconds, toleranceSeconds)', (ctx) => {
    if (!has('javac', ['-version']) || !has('java', ['-version']))
      skipBecause(ctx, 'Java verifier not run: no javac and java on this machine');
    const harness = `import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.Base64;

public class Harness {
  public static void main(String[] args) throws Exception {
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    String secret = in.readLine();
    long now = Long.parseLong(in.readLine());
    long tolerance = Long.parseLong(in.readLine());
    for (String line; (line = in.readLine()) != null; ) {
      if (line.isEmpty()) continue;
      String[] parts = line.split("\\t");
      System.out.println(WebhookVerifier.verify(secret, parts[0], Base64.getDecoder().decode(parts[1]), now, tolerance));
    }
  }
}
`;
    const dir = workDir({ 'java/WebhookVerifier.java': 'WebhookVerifier.java' }, { 'Harness.java': harness });
    execFileSync('javac', ['-d', '.', 'WebhookVerifier.java', 'Harness.java'], { cwd: dir, stdio: 'pipe' });
    expect(answers('java', ['-cp', '.', 'Harness'], dir)).toEqual(EXPECTED);
  });

  it('C#: WebhookVerifier.Verify(secret, signatureHeader, rawBody, nowSeconds, toleranceSeconds)', (ctx) => {
    const compiler = ['mcs', 'csc'].find((c) => has(c, ['-help']));
    if (!compiler || !has('mono', ['--version']))
      skipWithoutToolchain(ctx, 'C# verifier not run: no C# compiler (mcs or csc) and mono on this machine');
    const harness = `using System;

public static class Harness
{
    public static void Main()
    {
        string secret = Console.ReadLine();
        long now = long.Parse(Console.ReadLine());
        long tolerance = long.Parse(Console.ReadLine());
        for (string line; (line = Console.ReadLine()) != null; )
        {
            if (line.Length == 0) continue;
            string[] parts = line.Split('\\t');
            bool valid = WebhookVerifier.Verify(secret, parts[0], Convert.FromBase64String(parts[1]), now, tolerance);
            Console.WriteLine(valid ? "true" : "false");
        }
    }
}
`;
    const dir = workDir({ 'csharp/WebhookVerifier.cs': 'WebhookVerifier.cs' }, { 'Harness.cs': harness });
    execFileSync(compiler!, ['-nologo', '-out:verify.exe', 'WebhookVerifier.cs', 'Harness.cs'], {
      cwd: dir,
      stdio: 'pipe',
    });
    expect(answers('mono', ['verify.exe'], dir)).toEqual(EXPECTED);
  });
});

describe('docs/webhooks.md shows the files of verifiers/ as they are', () => {
  const PAGE = readFileSync(join(ROOT, 'docs/webhooks.md'), 'utf8');

  /** The fenced block of a language that follows a heading of the page. */
  function blockAfter(heading: string, lang: string): string {
    const from = PAGE.indexOf(`\n${heading}\n`);
    expect(from, `docs/webhooks.md has a "${heading}" section`).toBeGreaterThan(0);
    const m = new RegExp('^```' + lang + '\\n([\\s\\S]*?)^```$', 'm').exec(PAGE.slice(from));
    expect(m, `a ${lang} block under "${heading}"`).not.toBeNull();
    return m![1]!;
  }

  it.each([
    ['### Test vectors', 'json', 'vectors.json'],
    ['### Python', 'python', 'python/webhook_verifier.py'],
    ['### Go', 'go', 'go/webhook.go'],
    ['### Java', 'java', 'java/WebhookVerifier.java'],
    ['### C#', 'csharp', 'csharp/WebhookVerifier.cs'],
    ['### JavaScript (Node.js)', 'js', 'javascript/webhook-verifier.mjs'],
  ])('%s: its %s block is verifiers/%s, and names it', (heading, lang, path) => {
    expect(blockAfter(heading, lang)).toBe(file(path));
    const section = PAGE.slice(PAGE.indexOf(`\n${heading}\n`)).split(/\n### /)[1]!;
    expect(section).toContain(`verifiers/${path}`);
  });
});
