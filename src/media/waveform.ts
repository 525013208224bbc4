/**
 * A voice message's waveform as Discord draws it: up to 256 bytes, each the loudest sample of its slice of the
 * recording scaled to 0-255, base64-encoded. Ten slices a second, like Discord's own clients record.
 */
const MAX_POINTS = 256;
const POINTS_PER_SECOND = 10;
export const WAVEFORM_RATE = 8_000;

export function waveformOf(pcm: Buffer, rate = WAVEFORM_RATE): string {
  const samples = Math.floor(pcm.length / 2);
  const points = Math.max(1, Math.min(MAX_POINTS, Math.round((samples / rate) * POINTS_PER_SECOND)));
  const bytes = Buffer.alloc(points);
  for (let point = 0; point < points; point += 1) {
    const start = Math.floor((point * samples) / points);
    const end = Math.max(start + 1, Math.floor(((point + 1) * samples) / points));
    let peak = 0;
    for (let i = start; i < end && i < samples; i += 1) peak = Math.max(peak, Math.abs(pcm.readInt16LE(i * 2)));
    bytes[point] = Math.min(255, Math.round((peak / 32_768) * 255));
  }
  return bytes.toString("base64");
}
