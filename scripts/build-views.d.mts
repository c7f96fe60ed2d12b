/** Types for scripts/build-views.mjs, imported by the browser tests (test/views/). */
export declare const VIEWS: string[];
export declare const MAX_VIEW_BYTES: number;
export declare function buildViews(outDir?: string): Promise<Record<string, number>>;
