import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { buildSchema, parse, validate } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GUIDES, GUIDES_DIR } from '../src/rest/reference-guides.js';
import { startListeningService, type ListeningService } from './helpers/service.js';

// Every curl example of the README, of docs/ and of the guides at /docs (docs/guides) runs, as written, with
// the real curl against a started service: GraphQL examples must validate against the schema and
// answer without errors, REST examples must answer 2xx or the status their comment names. An
// example that drifts fails here.

const README = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
/** The documents README links to (docs/*.md): their examples are as much the product's word as the README's. */
const DOCS_DIR = new URL('../docs/', import.meta.url);
const DOC_TEXTS = readdirSync(DOCS_DIR)
  .filter((name) => name.endsWith('.md'))
  .map((name) => readFileSync(new URL(name, DOCS_DIR), 'utf8'));
/** The guides shown at /docs (docs/guides): their curl examples run the same way. */
const GUIDE_TEXTS = GUIDES.map((name) => readFileSync(join(GUIDES_DIR, `${name}.md`), 'utf8'));
const SCHEMA = buildSchema(readFileSync(new URL('../schema.graphql', import.meta.url), 'utf8'));

/** Examples that cannot run here, and why (each must still be in the README or docs/). */
const NOT_RUN: Record<string, string> = {
  'front_image=@passport.jpg':
    'needs a photo of a real document, which the repository does not ship (test/id-verification.test.ts reads documents)',
};

interface Example {
  command: string;
  /** The status named by the example's trailing comment (`# 404 not_found`), else any 2xx. */
  status?: number;
}

/** The curl commands of the README's `sh` blocks: continuation lines joined, comments taken off. */
function curlExamples(markdown: string): Example[] {
  const blocks = [...markdown.matchAll(/```sh\n([\s\S]*?)```/g)].map((match) => match[1]!);
  const commands = blocks.flatMap((block) => block.replace(/\\\n\s*/g, ' ').split('\n'));
  return commands
    .filter((line) => line.trimStart().startsWith('curl '))
    .map((line) => {
      const comment = /\s#\s*(.*)$/.exec(line);
      const status = comment ? /\b([1-5]\d\d)\b/.exec(comment[1]!)?.[1] : undefined;
      return {
        command: (comment ? line.slice(0, comment.index) : line).trim(),
        status: status ? Number(status) : undefined,
      };
    });
}

let service: ListeningService;
let scratch: string;
let env: Record<string, string>;

beforeAll(async () => {
  service = await startListeningService({ seedLicenses: true });
  scratch = mkdtempSync(join(tmpdir(), 'readme-'));
  const demo = service.demo;
  // What the README's own first lines read from demo.json.
  // The guides' sandbox examples use a test key.
  const { key: testKey } = await service.core.tenancy.createApiKey({ projectId: demo.project_id, mode: 'test' });
  env = {
    API_KEY: demo.api_key,
    TEST_KEY: testKey,
    ADMIN: demo.admin_token,
    PROJECT: demo.project_id,
    KYC: demo.workflows.kyc,
    BODY: join(scratch, 'body'),
  };
}, 120_000);
afterAll(async () => {
  rmSync(scratch, { recursive: true, force: true });
  await service?.close();
});

/** Runs one example with the real curl (asynchronously: the service answers from this process). */
async function runCurl(command: string): Promise<{ status: number; body: string }> {
  const host = new URL(service.url).host;
  // The pipe after an example (`| grep ...`) only filters what a person reads.
  const request = command
    .replace(/localhost:8080/g, host)
    .replace(/<session_id>/g, '$SESSION')
    .split(' | ')[0]!;
  const { stdout } = await promisify(execFile)('bash', ['-c', `${request} -sS -o "$BODY" -w '\\n%{http_code}'`], {
    env: { ...process.env, ...env },
  });
  return { status: Number(stdout.trim().split('\n').pop()), body: readFileSync(env.BODY!, 'utf8') };
}

/** The GraphQL document a curl example posts, read from its `-d` body as bash expands it. */
async function graphqlOf(command: string): Promise<string> {
  const { stdout } = await promisify(execFile)(
    'bash',
    ['-c', `curl() { while [ "$#" -gt 0 ]; do if [ "$1" = -d ]; then printf '%s' "$2"; fi; shift; done; }; ${command}`],
    { env: { ...process.env, ...env } },
  );
  return (JSON.parse(stdout) as { query: string }).query;
}

describe('README and guide examples', () => {
  const examples = [README, ...DOC_TEXTS, ...GUIDE_TEXTS].flatMap(curlExamples);

  it('finds the examples, among them GraphQL ones, and each one it does not run is still there', () => {
    expect(examples.length).toBeGreaterThanOrEqual(10);
    expect(examples.filter((example) => example.command.includes('/graphql')).length).toBeGreaterThanOrEqual(2);
    for (const marker of Object.keys(NOT_RUN))
      expect(
        examples.some((example) => example.command.includes(marker)),
        marker,
      ).toBe(true);
  });

  it('runs every curl example as written: GraphQL validates and answers without errors, REST answers as its comment says', async () => {
    for (const example of examples) {
      if (Object.keys(NOT_RUN).some((marker) => example.command.includes(marker))) continue;
      if (example.command.includes('/graphql')) {
        const query = await graphqlOf(example.command);
        expect(
          validate(SCHEMA, parse(query)).map((error) => error.message),
          query,
        ).toEqual([]);
      }
      const { status, body } = await runCurl(example.command);
      const what = `${example.command}\n-> ${status} ${body.slice(0, 300)}`;
      if (example.status) expect(status, what).toBe(example.status);
      else expect(status >= 200 && status < 300, what).toBe(true);
      if (example.command.includes('/graphql')) expect(JSON.parse(body).errors, what).toBeUndefined();
      // The session the README creates is the one its decision example reads.
      if (/\/api\/v2\/session -H/.test(example.command) && example.command.includes('-d ') && status === 201)
        env.SESSION = JSON.parse(body).data.session_id;
    }
  }, 120_000);
});
