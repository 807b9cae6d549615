import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { isRendererUrl, resolveRendererLocation } from '../../../src/main/app/renderer-location';

describe('resolveRendererLocation', () => {
  it('loads the built file unless a dev server is given to an unpackaged app', () => {
    expect(resolveRendererLocation({ outDir: '/app/out', isPackaged: false, devServerUrl: undefined })).toEqual({
      kind: 'file',
      file: '/app/out/renderer/index.html',
    });
    expect(resolveRendererLocation({ outDir: '/app/out', isPackaged: false, devServerUrl: 'http://localhost:5173' })).toEqual({
      kind: 'dev-server',
      url: 'http://localhost:5173',
    });
  });

  it('ignores a dev server URL in a packaged app', () => {
    expect(resolveRendererLocation({ outDir: '/app/out', isPackaged: true, devServerUrl: 'http://localhost:5173' }).kind).toBe('file');
  });
});

describe('isRendererUrl', () => {
  const file = { kind: 'file', file: '/app/out/renderer/index.html' } as const;
  const fileUrl = pathToFileURL(file.file).href;

  it('accepts the renderer file, with any query or fragment', () => {
    expect(isRendererUrl(file, fileUrl)).toBe(true);
    expect(isRendererUrl(file, `${fileUrl}?tab=history#step-3`)).toBe(true);
  });

  it.each([
    'file:///app/out/renderer/other.html',
    'file:///tmp/index.html',
    'file://evil-host/app/out/renderer/index.html',
    'https://example.com/app/out/renderer/index.html',
    'about:blank',
    'not a url',
  ])('refuses %s', (url) => {
    expect(isRendererUrl(file, url)).toBe(false);
  });

  it('accepts only the dev server origin in development', () => {
    const dev = { kind: 'dev-server', url: 'http://localhost:5173/' } as const;
    expect(isRendererUrl(dev, 'http://localhost:5173/index.html')).toBe(true);
    expect(isRendererUrl(dev, 'http://localhost:5174/')).toBe(false);
    expect(isRendererUrl(dev, 'http://127.0.0.1:5173/')).toBe(false);
  });
});
