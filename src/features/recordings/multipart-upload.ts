import { Readable } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import busboy from 'busboy';
import type { Context, Next } from 'hono';
import type { Deps } from '../../deps.ts';
import { AppError } from '../../lib/errors.ts';
import { writeMeasured } from '../storage/measuring-stream.ts';
import { createTempPath, PRIVATE_FILE_MODE, removeTempFile } from '../storage/temp-files.ts';

declare module 'hono' {
  interface ContextVariableMap {
    /** Set by POST /v1/recordings for a multipart body: the streamed upload (fields and temp file). */
    upload?: MultipartUpload;
  }
}

/** The audio part of an upload, already on disk. */
export interface UploadedFile {
  /** Temp file under DATA_DIR; moved into storage on success, removed otherwise. */
  path: string;
  size: number;
  sha256: string;
  filename?: string;
  /** What the client said the part is; the stored type is sniffed from the bytes instead. */
  declaredType?: string;
}

export interface MultipartUpload {
  file?: UploadedFile;
  /** Text fields in the order they came, repeated names kept (`tags` may repeat). */
  fields: [string, string][];
}

/** Room for the text fields and part headers besides the file, when judging Content-Length up front. */
const FORM_OVERHEAD_BYTES = 1024 * 1024;
const MAX_FIELD_BYTES = 64 * 1024;
const MAX_FIELDS = 50;

export function isMultipart(contentType: string | undefined): boolean {
  return /^multipart\/form-data\b/i.test(contentType ?? '');
}

export function uploadTooLarge(maxBytes: number): AppError {
  return new AppError(
    'payload_too_large',
    `The uploaded file exceeds the limit of ${maxBytes} bytes (MAX_UPLOAD_BYTES).`,
    { param: 'file' },
  );
}

/**
 * Streams a `multipart/form-data` request to disk: the part named `file` goes to a temp file under DATA_DIR
 * while its SHA-256 is computed, text fields are collected. Memory use is bounded by stream buffers whatever
 * the file size. A file above `maxFileBytes` is a 413 as soon as the limit is crossed, and on any failure
 * (too large, malformed body, client gone) the temp file is removed before the error is thrown.
 */
export async function receiveMultipart(
  request: Request,
  options: { dataDir: string; maxFileBytes: number },
): Promise<MultipartUpload> {
  const contentType = request.headers.get('content-type') ?? '';
  const declaredLength = Number(request.headers.get('content-length') ?? Number.NaN);
  if (declaredLength > options.maxFileBytes + FORM_OVERHEAD_BYTES) throw uploadTooLarge(options.maxFileBytes);
  if (!request.body) throw malformed('the body is empty');

  let parser: busboy.Busboy;
  try {
    parser = busboy({
      headers: { 'content-type': contentType },
      defParamCharset: 'utf8',
      limits: {
        files: 1,
        // busboy reports the limit when it is reached, not exceeded: a file of exactly the maximum is fine.
        fileSize: options.maxFileBytes + 1,
        fields: MAX_FIELDS,
        fieldSize: MAX_FIELD_BYTES,
        parts: MAX_FIELDS + 1,
      },
    });
  } catch (err) {
    throw malformed((err as Error).message);
  }

  const body = Readable.fromWeb(request.body as unknown as WebReadableStream<Uint8Array>);
  // A client that goes away mid-body errors this stream: handled from birth, settled into `done` below.
  let bodyError: Error | undefined;
  let onBodyError: (err: Error) => void = (err) => {
    bodyError = err;
  };
  body.on('error', (err) => onBodyError(err));
  const fields: [string, string][] = [];
  let file: UploadedFile | undefined;
  let tempPath: string | undefined;
  const writes: Promise<void>[] = [];
  let failure: AppError | undefined;

  const fail = (error: AppError) => {
    if (failure) return;
    failure = error;
    // Stop reading: nothing more of this body will be used. Deferred, as busboy may be mid-write here.
    setImmediate(() => {
      body.unpipe(parser);
      body.destroy();
      parser.destroy();
    });
  };

  const done = new Promise<void>((resolve, reject) => {
    parser.on('field', (name, value, info) => {
      if (info.nameTruncated || info.valueTruncated) {
        fail(
          new AppError('parameter_invalid', `Field '${name}' is longer than ${MAX_FIELD_BYTES} bytes.`, {
            param: name,
          }),
        );
        return;
      }
      fields.push([name, value]);
    });
    parser.on('file', (name, stream, info) => {
      // From birth: the parser destroys its file stream with an error when the body ends early or is given up
      // on, possibly before the pipeline below has attached its own listeners (it awaits the temp path first).
      // An 'error' without a listener would end the process; the pipeline still sees the stream destroyed.
      stream.on('error', () => {});
      if (name !== 'file') {
        stream.resume();
        fail(
          new AppError(
            'parameter_unknown',
            `Unknown file field '${name}'. Send the audio as the field named 'file'.`,
            { param: name },
          ),
        );
        return;
      }
      stream.on('limit', () => fail(uploadTooLarge(options.maxFileBytes)));
      const write = (async () => {
        tempPath = await createTempPath(options.dataDir);
        // flush: the file is on disk before its recording row can commit.
        const measured = await writeMeasured(stream, tempPath, {
          flags: 'wx',
          flush: true,
          mode: PRIVATE_FILE_MODE,
        });
        if ((stream as { truncated?: boolean }).truncated) throw uploadTooLarge(options.maxFileBytes);
        file = {
          path: tempPath,
          ...measured,
          ...(info.filename ? { filename: info.filename } : {}),
          ...(info.mimeType ? { declaredType: info.mimeType } : {}),
        };
      })();
      // Awaited below; until then a failure must not count as unhandled.
      write.catch(() => {});
      writes.push(write);
    });
    parser.on('filesLimit', () =>
      fail(new AppError('parameter_invalid', 'Send exactly one file per request.', { param: 'file' })),
    );
    parser.on('fieldsLimit', () =>
      fail(new AppError('parameter_invalid', `At most ${MAX_FIELDS} form fields are accepted.`)),
    );
    parser.on('partsLimit', () =>
      fail(new AppError('parameter_invalid', `At most ${MAX_FIELDS + 1} form parts are accepted.`)),
    );
    parser.on('error', (err: Error) => reject(malformed(err.message)));
    // Also emitted when the parser is destroyed after a failure.
    parser.on('close', () => resolve());
    onBodyError = reject;
    if (bodyError) reject(bodyError);
    body.pipe(parser);
  });

  try {
    await done;
    await Promise.all(writes);
    if (failure) throw failure;
    return { fields, ...(file ? { file } : {}) };
  } catch (err) {
    if (tempPath) await removeTempFile(tempPath);
    // Wait for writes that may still be creating the temp file, then remove it for good.
    await Promise.allSettled(writes);
    if (tempPath) await removeTempFile(tempPath);
    throw failure ?? (err instanceof AppError ? err : malformed((err as Error).message));
  }
}

function malformed(detail: string): AppError {
  return new AppError(
    'parameter_invalid',
    `The multipart/form-data body could not be read: ${detail.replace(/^Multipart:\s*/i, '')}.`.replace(
      /\.\.$/,
      '.',
    ),
  );
}

/**
 * Streams the multipart body into the context's `upload` for the handler, then removes the temp file: a handler
 * that keeps it has moved it into storage by then, and anything else must not linger.
 */
export async function withMultipartUpload(c: Context, deps: Deps, next: Next): Promise<void> {
  const upload = await receiveMultipart(c.req.raw, {
    dataDir: deps.config.dataDir,
    maxFileBytes: deps.config.maxUploadBytes,
  });
  c.set('upload', upload);
  try {
    await next();
  } finally {
    if (upload.file) await removeTempFile(upload.file.path);
  }
}
