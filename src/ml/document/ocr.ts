import { createRequire } from 'node:module';
import path from 'node:path';
import { createWorker, type Worker } from 'tesseract.js';

// A warm pool of tesseract.js workers that never touches the network: traineddata, worker script
// and core all come from node_modules. Jobs queue for a free worker; each job sets its own
// parameters, so MRZ and page passes can share workers.

const require = createRequire(import.meta.url);

function tesseractPaths() {
  const tesseractDir = path.dirname(require.resolve('tesseract.js/package.json'));
  return {
    langPath: path.join(path.dirname(require.resolve('@tesseract.js-data/eng/package.json')), '4.0.0_best_int'),
    workerPath: path.join(tesseractDir, 'src', 'worker-script', 'node', 'index.js'),
    corePath: path.dirname(require.resolve('tesseract.js-core/package.json')),
  };
}

export const MRZ_WHITELIST = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789<';

export interface OcrSymbol {
  text: string;
  confidence: number;
  bbox: { x0: number; y0: number; x1: number; y1: number };
}

export interface OcrLine {
  text: string;
  symbols: OcrSymbol[];
  confidence: number;
  bbox: { x0: number; y0: number; x1: number; y1: number };
  baseline: { x0: number; y0: number; x1: number; y1: number };
}

export interface OcrResult {
  text: string;
  confidence: number;
  lines: OcrLine[];
  ms: number;
}

export interface OcrJob {
  /** Encoded image (PNG) to read. */
  image: Buffer;
  /** Page segmentation mode: '3' auto page, '6' single block, '11' sparse text. */
  psm: '3' | '4' | '6' | '7' | '11';
  whitelist?: string;
}

export class OcrPool {
  private idle: Worker[] = [];
  private waiting: Array<{ resolve: (w: Worker) => void; reject: (e: Error) => void }> = [];
  private closed = false;

  private constructor(private readonly workers: Worker[]) {
    this.idle = [...workers];
  }

  static async start(size = 1): Promise<OcrPool> {
    const { langPath, workerPath, corePath } = tesseractPaths();
    const workers = await Promise.all(
      Array.from({ length: Math.max(1, size) }, () =>
        createWorker('eng', 1 /* LSTM only */, { langPath, workerPath, corePath, cacheMethod: 'none', gzip: true }),
      ),
    );
    return new OcrPool(workers);
  }

  async recognize(job: OcrJob): Promise<OcrResult> {
    const worker = await this.acquire();
    try {
      await worker.setParameters({
        tessedit_pageseg_mode: job.psm as never,
        tessedit_char_whitelist: job.whitelist ?? '',
        preserve_interword_spaces: '0',
        // Rendered crops carry no usable DPI; a fixed one keeps tesseract from guessing (and printing about it).
        user_defined_dpi: '200',
        debug_file: '/dev/null',
      });
      const started = performance.now();
      const { data } = await worker.recognize(job.image, {}, { text: true, blocks: true });
      const ms = performance.now() - started;
      const lines: OcrLine[] = [];
      for (const block of data.blocks ?? []) {
        for (const paragraph of block.paragraphs) {
          for (const line of paragraph.lines) {
            const symbols = line.words.flatMap((w) => w.symbols.map((sym) => ({ text: sym.text, confidence: sym.confidence, bbox: sym.bbox })));
            lines.push({ text: line.text.replace(/\n$/, ''), symbols, confidence: line.confidence, bbox: line.bbox, baseline: line.baseline });
          }
        }
      }
      return { text: data.text, confidence: data.confidence, lines, ms };
    } finally {
      this.release(worker);
    }
  }

  private acquire(): Promise<Worker> {
    if (this.closed) return Promise.reject(new Error('document reader is closed'));
    const worker = this.idle.pop();
    if (worker) return Promise.resolve(worker);
    return new Promise((resolve, reject) => this.waiting.push({ resolve, reject }));
  }

  private release(worker: Worker): void {
    const next = this.waiting.shift();
    if (next) next.resolve(worker);
    else this.idle.push(worker);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const waiter of this.waiting.splice(0)) waiter.reject(new Error('document reader is closed'));
    await Promise.all(this.workers.map((w) => w.terminate()));
  }
}
