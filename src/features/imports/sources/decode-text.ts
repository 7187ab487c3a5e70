/** UTF-8 text of an export's file; a byte order mark is dropped, any other byte that is not UTF-8 is an error. */
export function decodeUtf8(bytes: Uint8Array): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new SourceItemError('not valid UTF-8 text');
  }
}

/** An item of a source that cannot be read: its message is shown to the owner beside the item's name. */
export class SourceItemError extends Error {
  override name = 'SourceItemError';
}
