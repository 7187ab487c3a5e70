/**
 * The source of the thread that reads and parses an Omi export's JSON (omi-export-stream.ts): decoding and
 * parsing a large export is seconds of CPU, kept off the API's event loop. Plain JavaScript evaluated as the
 * worker's script (`new Worker(source, { eval: true })`), so it works the same from the sources (tsx) and from the
 * bundle (dist/main.js); @streamparser/json is resolved by the parent and passed as an absolute path.
 *
 * workerData: `{ parserPath, file, paths, keys?, pieceBytes, answerBytes, maxValueBytes, niceIncrement }`: the
 * values at `paths` are parsed and dropped once given, and sent only where their key is in `keys` (all when
 * absent). Each message in asks for more; the thread then reads pieces until at least one value to send has ended
 * and `answerBytes` are read (or the file has ended), and answers `{ values: [{ key, value }], done?, error? }`
 * (error: `{ kind: 'too-large' | 'not-utf8' | 'json', message }`), the values in file order before any error. It
 * reads nothing more until asked, so memory holds one answer (about `answerBytes` of values) and at most
 * `maxValueBytes` of a value in progress. After `done` or an error it closes the file and ends.
 */
export const OMI_JSON_THREAD_SOURCE = String.raw`
const { parentPort, workerData } = require('node:worker_threads');
const fs = require('node:fs');
const { TextDecoder } = require('node:util');
const { JSONParser } = require(workerData.parserPath);
const { file, paths, keys, pieceBytes, answerBytes, maxValueBytes } = workerData;

// Background work: this thread runs at the process's priority lowered by the increment (as lowerThreadPriority does).
try {
  const tid = Number(/task\/(\d+)$/.exec(fs.readlinkSync('/proc/thread-self'))?.[1]);
  const os = require('node:os');
  if (tid > 0) os.setPriority(tid, Math.min(19, os.getPriority(process.pid) + workerData.niceIncrement));
} catch {
  // not Linux, or not allowed: same priority as the API
}

class Failure extends Error {
  constructor(kind, message) {
    super(message);
    this.kind = kind;
  }
}

const parser = new JSONParser({ paths, keepStack: false });
const ready = [];
let failure;
let ended = false;
let valueEnded = false;
parser.onValue = ({ value, key }) => {
  valueEnded = true;
  if (!keys || keys.includes(key)) ready.push({ key, value });
};
parser.onError = (err) => {
  failure ??= new Failure('json', err.message);
};
parser.onEnd = () => {
  ended = true;
};
// Strictly: a byte that is not UTF-8 is an error, not a replacement character.
const decoder = new TextDecoder('utf-8', { fatal: true });
function decode(piece) {
  try {
    return piece ? decoder.decode(piece, { stream: true }) : decoder.decode();
  } catch {
    throw new Failure('not-utf8', 'not valid UTF-8');
  }
}

let fd;
const buffer = Buffer.alloc(pieceBytes);
// Bytes read since a value last ended: a value that spans more is never held whole.
let since = 0;
// Bytes read since the last answer: values are sent in answers of about answerBytes of the file, fewer round trips.
let unanswered = 0;

function finish(answer) {
  if (fd !== undefined) fs.closeSync(fd);
  fd = undefined;
  parentPort.postMessage(answer);
  parentPort.close();
}

function next() {
  try {
    fd ??= fs.openSync(file, 'r');
    for (;;) {
      const read = fs.readSync(fd, buffer, 0, pieceBytes, null);
      if (read === 0) {
        if (failure) throw failure;
        const rest = decode(undefined);
        if (rest) parser.write(rest);
        if (!ended && !failure) parser.end();
        if (failure) throw failure;
        finish({ values: ready.splice(0), done: true });
        return;
      }
      parser.write(decode(buffer.subarray(0, read)));
      since = valueEnded ? 0 : since + read;
      valueEnded = false;
      if (since > maxValueBytes) throw new Failure('too-large', 'value too large');
      if (failure) throw failure;
      unanswered += read;
      if (ready.length && unanswered >= answerBytes) {
        unanswered = 0;
        parentPort.postMessage({ values: ready.splice(0) });
        return;
      }
    }
  } catch (err) {
    const known = err instanceof Failure ? err : new Failure('json', String((err && err.message) || err));
    finish({ values: ready.splice(0), error: { kind: known.kind, message: known.message } });
  }
}

parentPort.on('message', next);
`;
