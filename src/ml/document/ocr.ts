// What the OCR engine returns: lines of text with per-character boxes and confidences.

export const MRZ_WHITELIST = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789<';

export interface OcrSymbol {
  text: string;
  confidence: number;
  /** The recogniser's next likeliest readings of this character, when it gives them. */
  alternatives?: Array<{ text: string; p: number }>;
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
