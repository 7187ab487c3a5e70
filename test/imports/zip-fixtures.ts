import fs from 'node:fs';
import yazl from 'yazl';

/** Writes a ZIP of these entries (deflated) to `file`; a name given as `{ unsafe }` is written as is. */
export async function writeZip(
  file: string,
  entries: { name: string; data: string | Uint8Array }[],
): Promise<void> {
  const zip = new yazl.ZipFile();
  // yazl refuses unsafe names, as a writer should: they are written under a same-length stand-in and swapped in.
  const swaps: [string, string][] = [];
  for (const [i, entry] of entries.entries()) {
    let name = entry.name;
    if (name.startsWith('../')) {
      const standIn = `z${String(i).padStart(2, '0')}${name.slice(3)}`;
      swaps.push([standIn, name]);
      name = standIn;
    }
    zip.addBuffer(Buffer.from(entry.data), name, { compress: true, mtime: new Date('2025-10-10T00:00:00Z') });
  }
  zip.end();
  const chunks: Buffer[] = [];
  for await (const chunk of zip.outputStream) chunks.push(chunk as Buffer);
  let bytes = Buffer.concat(chunks);
  for (const [standIn, real] of swaps) {
    bytes = Buffer.from(bytes.toString('latin1').split(standIn).join(real), 'latin1');
  }
  fs.writeFileSync(file, bytes);
}
