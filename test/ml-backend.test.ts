import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { compiledModule, root } from './helpers/compiled.js';
import { checkedFetch, servedDocument } from './helpers/contract.js';
import { VerityProcess, verityEnv } from './helpers/verity-process.js';

// The TF.js backend is picked once per process, so each choice is made in a process of its own:
// tfjs-node when it loads (an optional dependency whose install needs the internet), else WASM,
// else CPU; VERITY_TF_BACKEND forces one. `verity serve` warms the models and says which backend
// it uses in /readyz and in its log.

const require = createRequire(import.meta.url);

/** Whether npm could install tfjs-node here (its install downloads libtensorflow). */
function nativeTfInstalled(): boolean {
  try {
    require.resolve('@tensorflow/tfjs-node');
    return true;
  } catch {
    return false;
  }
}

async function pickBackend(forced?: string): Promise<{ backend: string; wasm?: string; matmul: number[] }> {
  // A real kernel runs on the chosen backend, so "picked" also means "works".
  const script = `
    const { loadTf, tfBackend, tfWasmFeatures } = await import(${JSON.stringify(pathToFileURL(compiledModule('ml/tf.js')).href)});
    const tf = await loadTf();
    const product = tf.matMul(tf.tensor2d([[1, 2], [3, 4]]), tf.tensor2d([[5], [6]]));
    console.log(JSON.stringify({ backend: tfBackend(), wasm: tfWasmFeatures(), matmul: Array.from(await product.data()) }));`;
  const env: NodeJS.ProcessEnv = { ...process.env };
  delete env.VERITY_TF_BACKEND;
  if (forced) env.VERITY_TF_BACKEND = forced;
  const { stdout } = await promisify(execFile)('node', ['--input-type=module', '-e', script], {
    cwd: root,
    env,
    timeout: 60_000,
  });
  return JSON.parse(stdout.trim().split('\n').pop()!);
}

describe('the TF.js backend', () => {
  it('is tfjs-node when it loads, else WASM with SIMD; VERITY_TF_BACKEND forces WASM or CPU', {
    timeout: 120_000,
  }, async () => {
    const best = await pickBackend();
    expect(best.matmul).toEqual([17, 39]);
    if (nativeTfInstalled()) {
      expect(best.backend).toBe('tensorflow');
      expect(best.wasm).toBeUndefined();
    } else {
      expect(best.backend).toBe('wasm');
      expect(best.wasm).toMatch(/^simd/); // Node 20's V8 has WASM SIMD
    }

    const wasm = await pickBackend('wasm');
    expect(wasm).toMatchObject({ backend: 'wasm', matmul: [17, 39] });
    expect(wasm.wasm).toMatch(/^(simd|simd\+threads|threads|plain)$/);

    const cpu = await pickBackend('cpu');
    expect(cpu).toEqual({ backend: 'cpu', matmul: [17, 39] }); // no WASM features on CPU
  });
});

describe('verity serve with VERITY_WARM_MODELS=1', () => {
  let instance: VerityProcess | undefined;
  afterAll(async () => {
    await instance?.destroy();
  });

  it('is ready only once every model is loaded, and /readyz and the log name the backend', {
    timeout: 240_000,
  }, async () => {
    // The embedded store: this is about the models, not the database.
    instance = await VerityProcess.start(verityEnv('', { VERITY_WARM_MODELS: '1', LOG_LEVEL: 'info' }));
    // The answer is checked against the OpenAPI document, as service.http's are (helpers/contract.ts).
    const ready = await checkedFetch(await servedDocument(instance.url))(`${instance.url}/readyz`);
    expect(ready.status).toBe(200);
    const body = (await ready.json()) as Record<string, unknown>;
    const backend = nativeTfInstalled() ? 'tensorflow' : 'wasm';
    expect(body).toMatchObject({
      status: 'ready',
      database: true,
      migrations: true,
      ocr: true,
      faces: true,
      liveness: true,
      tf_backend: backend,
    });
    if (backend === 'wasm') expect(body.tf_wasm).toMatch(/^simd/);

    // The log line is written right after the models settle; give it a moment to arrive.
    let loaded: Record<string, unknown> | undefined;
    for (let i = 0; i < 50 && !loaded; i++) {
      loaded = instance
        .output()
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line))
        .find((entry) => entry.msg === 'models loaded');
      if (!loaded) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(loaded).toMatchObject({ level: 30, tf_backend: backend, faces: true, liveness: true, ocr: true });
    expect(loaded!.ms).toBeGreaterThan(0);
  });
});
