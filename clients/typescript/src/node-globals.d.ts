// The few Node APIs the Node-only files use (the node entry point, the conformance runner,
// the benchmark), declared here so that the package builds with no @types package and the
// engine cannot reach them by accident: only those files import these modules.

declare module "fs" {
  export function readFileSync(path: string, encoding: "utf8"): string;
  export function writeFileSync(path: string, data: string): void;
  export function unlinkSync(path: string): void;
  export function existsSync(path: string): boolean;
  export function mkdirSync(path: string, options?: { recursive?: boolean }): void;
  export function readdirSync(path: string): string[];
  export const promises: {
    readFile(path: string, encoding: "utf8"): Promise<string>;
    open(path: string, flags: string, mode?: number): Promise<{
      writeFile(data: string, encoding: "utf8"): Promise<void>;
      sync(): Promise<void>;
      close(): Promise<void>;
    }>;
    rename(from: string, to: string): Promise<void>;
    unlink(path: string): Promise<void>;
  };
}

declare module "crypto" {
  export function createHash(algorithm: "sha256"): { update(data: Uint8Array): { digest(encoding: "hex"): string } };
}

declare module "path" {
  export function dirname(path: string): string;
  export function basename(path: string): string;
  export function join(...parts: string[]): string;
}

declare module "child_process" {
  export function execFileSync(file: string, args: string[], options?: { encoding: "utf8"; maxBuffer?: number }): string;
}

declare const process: {
  argv: string[];
  exitCode: number | undefined;
  pid: number;
  env: { [name: string]: string | undefined };
  hrtime: { bigint(): bigint };
  stdout: { write(text: string): boolean };
  stderr: { write(text: string): boolean };
};
