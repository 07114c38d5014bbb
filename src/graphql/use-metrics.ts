import { getOperationAST } from "graphql";
import type { Plugin } from "graphql-yoga";

/** Receives each executed operation: its name ("anonymous" when it has none), its type and how long it ran. */
export type OperationObserver = (name: string, type: string, seconds: number) => void;

/** Times every executed operation; requests that fail to parse or validate never get this far. */
export function useMetrics(observe: OperationObserver): Plugin {
  return {
    onExecute({ args }) {
      const started = performance.now();
      const operation = getOperationAST(args.document, args.operationName);
      return {
        onExecuteDone() {
          const seconds = (performance.now() - started) / 1000;
          observe(operation?.name?.value ?? "anonymous", operation?.operation ?? "unknown", seconds);
        },
      };
    },
  };
}
