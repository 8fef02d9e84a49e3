// Turning camera frames and chosen files into the JPEG data URLs the API takes.

export const TOO_DARK = 35;

/** Mean brightness (0-255) of a canvas: photos too dark to read are refused before upload. */
export function brightness(canvas: HTMLCanvasElement): number {
  const { data } = canvas.getContext('2d')!.getImageData(0, 0, canvas.width, canvas.height);
  let sum = 0;
  let n = 0;
  for (let i = 0; i < data.length; i += 40) {
    sum += 0.299 * data[i]! + 0.587 * data[i + 1]! + 0.114 * data[i + 2]!;
    n++;
  }
  return sum / n;
}

/** `source` drawn on a canvas whose longer side is at most `maxSide`. */
export function toCanvas(source: CanvasImageSource, width: number, height: number, maxSide: number): HTMLCanvasElement {
  const scale = Math.min(1, maxSide / Math.max(width, height));
  const canvas = document.createElement('canvas');
  canvas.width = Math.round(width * scale);
  canvas.height = Math.round(height * scale);
  canvas.getContext('2d')!.drawImage(source, 0, 0, canvas.width, canvas.height);
  return canvas;
}

/** A chosen photo as a JPEG data URL (at most 2400 px), refused when too dark to read. */
export async function fileToDataUrl(file: File): Promise<string> {
  const bitmap = await createImageBitmap(file);
  const canvas = toCanvas(bitmap, bitmap.width, bitmap.height, 2400);
  if (brightness(canvas) < TOO_DARK) throw { code: 'photo_too_dark' };
  return canvas.toDataURL('image/jpeg', 0.92);
}
