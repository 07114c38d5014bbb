import { NodeFS } from "@electric-sql/pglite/nodefs";

/** The calls of Emscripten's file system API that set a mode; on a NODEFS mount they become chmod(2). */
interface ModeSetters {
  chmod(path: unknown, mode: number, dontFollow?: boolean): void;
  fchmod(fd: number, mode: number): void;
}

const OWNER_ONLY = 0o7700;

function ownerOnly(fs: ModeSetters): void {
  const { chmod, fchmod } = fs;
  fs.chmod = (path, mode, dontFollow) => chmod.call(fs, path, mode & OWNER_ONLY, dontFollow);
  fs.fchmod = (fd, mode) => fchmod.call(fs, fd, mode & OWNER_ONLY);
}

/**
 * PGlite's Node file system with group and other bits taken off every mode it sets. Emscripten gives a file it
 * creates the mode its caller asked for with an explicit chmod, past the process umask, and PGlite's initdb asks
 * for 0666: without this, the catalog, the configuration and the WAL of a new data directory are world-readable.
 * The patch is on this PGlite's own Emscripten module, nothing process-wide.
 */
export class OwnerOnlyNodeFS extends NodeFS {
  override async init(...args: Parameters<NodeFS["init"]>): ReturnType<NodeFS["init"]> {
    const { emscriptenOpts } = await super.init(...args);
    return {
      emscriptenOpts: { ...emscriptenOpts, preRun: [...(emscriptenOpts.preRun ?? []), (mod) => ownerOnly(mod.FS)] },
    };
  }
}
