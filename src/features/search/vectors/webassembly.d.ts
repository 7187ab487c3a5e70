// Node runs WebAssembly, but TypeScript's ES libraries do not describe it (lib.dom does): the part the exact
// vector store uses (shared memory for the scanning thread).
declare global {
  namespace WebAssembly {
    interface MemoryDescriptor {
      initial: number;
      maximum?: number;
      shared?: boolean;
    }
    interface Memory {
      readonly buffer: ArrayBuffer | SharedArrayBuffer;
    }
    const Memory: { prototype: Memory; new (descriptor: MemoryDescriptor): Memory };
  }
}

export {};
