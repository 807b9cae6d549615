/**
 * Build of the three Electron parts into out/: main (ESM, Node), preload (one CommonJS file,
 * sandboxed) and renderer (React, browser). Bundling needs only the `electron` package's version,
 * never its binary.
 */
import { resolve } from 'node:path';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'electron-vite';
import type { Plugin } from 'vite';
import { contentSecurityPolicy } from './src/shared/csp';

const root = import.meta.dirname;

/**
 * Native modules carry .node binaries (sharp its libvips in @img/*): they must stay in
 * node_modules (asar-unpacked by electron-builder.yml), never inside the bundle. Listed
 * explicitly so they stay external even if they move out of `dependencies`.
 */
const nativeExternal = [/^@nut-tree-fork\//, /^sharp(\/|$)/, /^@img\//, /^screenshot-desktop(\/|$)/];

/**
 * Puts the CSP in index.html as a <meta> tag: file:// pages get no response headers. The dev
 * server gets the looser development policy (see csp.ts).
 */
function contentSecurityPolicyMeta(): Plugin {
  return {
    name: 'mnemo:csp-meta',
    transformIndexHtml: {
      order: 'pre',
      handler(_html, context) {
        const origin = context.server?.resolvedUrls?.local[0];
        const policy = contentSecurityPolicy({ devServerOrigin: origin ? new URL(origin).origin : undefined });
        return [{ tag: 'meta', attrs: { 'http-equiv': 'Content-Security-Policy', content: policy }, injectTo: 'head-prepend' }];
      },
    },
  };
}

export default defineConfig({
  main: {
    build: {
      outDir: resolve(root, 'out/main'),
      // Pure-JS dependencies stay external too (electron-vite's default): electron-builder ships them.
      externalizeDeps: true,
      // The operator host runs in its own process (src/main/operator/isolated-operator.ts), found
      // beside the main bundle as operator-host.js.
      lib: { entry: { index: resolve(root, 'src/main/index.ts'), 'operator-host': resolve(root, 'src/main/operator/operator-host.ts') } },
      rolldownOptions: { external: nativeExternal },
    },
  },
  preload: {
    build: {
      outDir: resolve(root, 'out/preload'),
      // A sandboxed preload can require only `electron` (and a few builtins): bundle zod and the
      // contract into it, and emit CommonJS, since sandboxed preloads cannot be ES modules.
      externalizeDeps: false,
      lib: { entry: resolve(root, 'src/preload/index.ts'), formats: ['cjs'] },
      rolldownOptions: { output: { format: 'cjs', entryFileNames: '[name].cjs' } },
    },
  },
  renderer: {
    root: resolve(root, 'src/renderer'),
    plugins: [react(), contentSecurityPolicyMeta()],
    build: {
      outDir: resolve(root, 'out/renderer'),
      rolldownOptions: { input: resolve(root, 'src/renderer/index.html') },
    },
  },
});
