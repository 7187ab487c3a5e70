/**
 * Small real audio files built in code (no encoder needed on the machine): PCM WAV, FLAC with verbatim
 * subframes, MPEG-1 Layer III frames, and Ogg Opus pages. Each is a well-formed file of its format with a known
 * duration, so tests can check that the service sniffs the type and measures the duration from the audio.
 */

/** A 440 Hz tone, 16-bit mono samples. */
function tone(seconds: number, rate: number): Int16Array {
  const n = Math.round(seconds * rate);
  const samples = new Int16Array(n);
  for (let i = 0; i < n; i++) samples[i] = Math.round(Math.sin((2 * Math.PI * 440 * i) / rate) * 8000);
  return samples;
}

/** The 44-byte RIFF/WAVE header announcing `dataBytes` of PCM 16-bit mono at `rate` Hz. */
export function wavHeader(dataBytes: number, rate = 16_000): Buffer {
  const header = Buffer.alloc(44);
  header.write('RIFF', 0, 'latin1');
  header.writeUInt32LE(36 + dataBytes, 4);
  header.write('WAVE', 8, 'latin1');
  header.write('fmt ', 12, 'latin1');
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20); // PCM
  header.writeUInt16LE(1, 22); // mono
  header.writeUInt32LE(rate, 24);
  header.writeUInt32LE(rate * 2, 28);
  header.writeUInt16LE(2, 32);
  header.writeUInt16LE(16, 34);
  header.write('data', 36, 'latin1');
  header.writeUInt32LE(dataBytes, 40);
  return header;
}

/** RIFF/WAVE, PCM 16-bit mono. */
export function wavFile(seconds: number, rate = 16_000): Buffer {
  const samples = tone(seconds, rate);
  const data = Buffer.alloc(samples.length * 2);
  samples.forEach((s, i) => {
    data.writeInt16LE(s, i * 2);
  });
  return Buffer.concat([wavHeader(data.length, rate), data]);
}

/** MPEG-1 Layer III, 128 kbit/s, 44.1 kHz, mono; frames of 1152 samples (side info and data zero). */
export function mp3File(seconds: number): Buffer {
  const frameBytes = Math.floor((144 * 128_000) / 44_100); // 417, no padding
  const frames = Math.round((seconds * 44_100) / 1152);
  const out = Buffer.alloc(frameBytes * frames);
  for (let f = 0; f < frames; f++) {
    // sync + MPEG-1 + layer III + no CRC | 128 kbit/s, 44.1 kHz, no padding | mono
    out.set([0xff, 0xfb, 0x90, 0xc0], f * frameBytes);
  }
  return out;
}

class BitWriter {
  private bytes: number[] = [];
  private current = 0;
  private used = 0;
  write(value: number, bits: number) {
    for (let i = bits - 1; i >= 0; i--) {
      this.current = (this.current << 1) | (Math.floor(value / 2 ** i) & 1);
      if (++this.used === 8) {
        this.bytes.push(this.current);
        this.current = 0;
        this.used = 0;
      }
    }
  }
  toBuffer(): Buffer {
    if (this.used) throw new Error('not byte aligned');
    return Buffer.from(this.bytes);
  }
}

function crc8(bytes: Buffer): number {
  let crc = 0;
  for (const byte of bytes) {
    crc ^= byte;
    for (let i = 0; i < 8; i++) crc = crc & 0x80 ? ((crc << 1) ^ 0x07) & 0xff : (crc << 1) & 0xff;
  }
  return crc;
}

function crc16(bytes: Buffer): number {
  let crc = 0;
  for (const byte of bytes) {
    crc ^= byte << 8;
    for (let i = 0; i < 8; i++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x8005) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc;
}

/** FLAC, 16-bit mono at 16 kHz, frames of 4096 samples with VERBATIM subframes; STREAMINFO has the length. */
export function flacFile(seconds: number, rate = 16_000): Buffer {
  const samples = tone(seconds, rate);
  const block = 4096;
  const info = new BitWriter();
  info.write(block, 16);
  info.write(block, 16);
  info.write(0, 24);
  info.write(0, 24);
  info.write(rate, 20);
  info.write(0, 3); // channels - 1
  info.write(15, 5); // bits per sample - 1
  info.write(samples.length, 36);
  for (let i = 0; i < 16; i++) info.write(0, 8); // MD5 unknown
  const streamInfo = info.toBuffer();
  const blockHeader = Buffer.from([0x80, 0, 0, streamInfo.length]); // last metadata block, STREAMINFO
  const frames: Buffer[] = [];
  for (let start = 0, n = 0; start < samples.length; start += block, n++) {
    const count = Math.min(block, samples.length - start);
    const header = new BitWriter();
    header.write(0b11111111111110, 14);
    header.write(0, 1);
    header.write(0, 1); // fixed block size
    header.write(0b0111, 4); // block size: 16 bits follow
    header.write(0b0000, 4); // sample rate: from STREAMINFO
    header.write(0b0000, 4); // mono
    header.write(0b100, 3); // 16 bits per sample
    header.write(0, 1);
    if (n > 127) throw new Error('fixture too long');
    header.write(n, 8); // frame number, UTF-8 coded (one byte below 128)
    header.write(count - 1, 16);
    const head = header.toBuffer();
    const body = new BitWriter();
    body.write(0, 1);
    body.write(0b000001, 6); // VERBATIM
    body.write(0, 1);
    for (let i = 0; i < count; i++) body.write(samples[start + i]! & 0xffff, 16);
    const frame = Buffer.concat([head, Buffer.from([crc8(head)]), body.toBuffer()]);
    const crc = Buffer.alloc(2);
    crc.writeUInt16BE(crc16(frame));
    frames.push(frame, crc);
  }
  return Buffer.concat([Buffer.from('fLaC', 'latin1'), blockHeader, streamInfo, ...frames]);
}

const OGG_CRC = (() => {
  const table = new Uint32Array(256);
  for (let i = 0; i < 256; i++) {
    let r = i << 24;
    for (let j = 0; j < 8; j++) r = r & 0x80000000 ? (r << 1) ^ 0x04c11db7 : r << 1;
    table[i] = r >>> 0;
  }
  return table;
})();

function oggCrc(bytes: Buffer): number {
  let crc = 0;
  for (const byte of bytes) crc = ((crc << 8) ^ OGG_CRC[((crc >>> 24) ^ byte) & 0xff]!) >>> 0;
  return crc;
}

function oggPage(packets: Buffer[], flags: number, granule: bigint, sequence: number): Buffer {
  const lacing: number[] = [];
  for (const p of packets) {
    let left = p.length;
    while (left >= 255) {
      lacing.push(255);
      left -= 255;
    }
    lacing.push(left);
  }
  const header = Buffer.alloc(27 + lacing.length);
  header.write('OggS', 0, 'latin1');
  header[4] = 0;
  header[5] = flags;
  header.writeBigUInt64LE(granule, 6);
  header.writeUInt32LE(0x4d696e75, 14); // stream serial
  header.writeUInt32LE(sequence, 18);
  header[26] = lacing.length;
  lacing.forEach((l, i) => {
    header[27 + i] = l;
  });
  const page = Buffer.concat([header, ...packets]);
  page.writeUInt32LE(oggCrc(page), 22);
  return page;
}

/** Ogg Opus, mono 48 kHz, 20 ms packets holding only a TOC byte (silence); the last granule gives the length. */
export function oggOpusFile(seconds: number): Buffer {
  const head = Buffer.alloc(19);
  head.write('OpusHead', 0, 'latin1');
  head[8] = 1; // version
  head[9] = 1; // channels
  head.writeUInt16LE(0, 10); // pre-skip
  head.writeUInt32LE(48_000, 12);
  const vendor = Buffer.from('minutes-test', 'utf8');
  const tags = Buffer.alloc(8 + 4 + vendor.length + 4);
  tags.write('OpusTags', 0, 'latin1');
  tags.writeUInt32LE(vendor.length, 8);
  vendor.copy(tags, 12);
  tags.writeUInt32LE(0, 12 + vendor.length);
  const pages = [oggPage([head], 0x02, 0n, 0), oggPage([tags], 0, 0n, 1)];
  const packets = Math.round(seconds / 0.02);
  const perPage = 50;
  let sequence = 2;
  for (let done = 0; done < packets; done += perPage) {
    const count = Math.min(perPage, packets - done);
    const last = done + count >= packets;
    const granule = BigInt((done + count) * 960);
    pages.push(
      oggPage(
        Array.from({ length: count }, () => Buffer.from([0xf8])),
        last ? 0x04 : 0,
        granule,
        sequence++,
      ),
    );
  }
  return Buffer.concat(pages);
}
