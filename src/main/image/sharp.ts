/**
 * sharp, loaded at its first use. It brings libvips, a large native library that costs a command
 * about a tenth of a second of CPU to load, so a command that never touches an image (`mnemo facts
 * list`, `workflow list`, an operator that only acts) starts without it.
 */
import type Sharp from 'sharp';

let loading: Promise<typeof Sharp> | undefined;

export const loadSharp = (): Promise<typeof Sharp> => (loading ??= import('sharp').then((loaded) => loaded.default));
