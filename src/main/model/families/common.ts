/**
 * Helpers the family parsers share: building a wire-format action with a reason when it is
 * wrong, checking coordinates against the image, and mapping points between image sizes.
 */
import { ACTION_TYPES, type Action, actionPoints, mapActionCoordinates, parseAction, type Point } from '../../../shared/actions';
import { type ImageSize, type ParseFailure, type ReplyParse } from './types';

export function unreadableReply(reason: string): ParseFailure {
  return { ok: false, reason };
}

export type ActionBuild = { ok: true; action: Action } | ParseFailure;

/** Actions that cannot run without a point. */
const POINTED_TYPES = new Set<string>(['click', 'double_click', 'triple_click', 'mouse_move']);

/**
 * Validate a producer's action object into the wire format, with a reason that names the problem.
 * Unknown types and pointer actions without a point get short reasons of their own
 * (`unknown action "foo"`, `click without a point`); the rest come from the shared schema.
 */
export function buildAction(raw: unknown): ActionBuild {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    return unreadableReply('an action must be a JSON object with a "type" field');
  }
  const record = raw as Record<string, unknown>;
  const type = record.type;
  if (typeof type !== 'string') return unreadableReply('an action has no "type" field');
  if (!(ACTION_TYPES as string[]).includes(type)) return unreadableReply(`unknown action "${type}"`);
  if (POINTED_TYPES.has(type) && (record.x === undefined || record.x === null || record.y === undefined || record.y === null)) {
    return unreadableReply(`${type} without a point`);
  }
  const parsed = parseAction(record);
  return parsed.ok ? parsed : unreadableReply(parsed.message);
}

/** A reply that must be JSON, parsed and handed to the family's reader; not JSON is the failure. */
export function parseJsonReply<T extends object>(text: string, read: (value: unknown) => ReplyParse<T>): ReplyParse<T> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return unreadableReply(`the reply is not JSON: ${(error as Error).message}`);
  }
  return read(value);
}

export function describeSize(size: ImageSize): string {
  return `${size.width}x${size.height}`;
}

export function describePoint(point: Point): string {
  return `(${point.x}, ${point.y})`;
}

/**
 * Whether a point lies on the image. The image is the rectangle [0, width] x [0, height]: a point
 * on the far edge is accepted (the operator clamps it to the last pixel).
 */
export function pointInImage(point: Point, image: ImageSize): boolean {
  return point.x >= 0 && point.y >= 0 && point.x <= image.width && point.y <= image.height;
}

/**
 * The reason an action's coordinates are unusable, or null when they are fine. Without an image
 * only negative coordinates are refused.
 */
export function checkActionInImage(action: Action, image: ImageSize | undefined): string | null {
  for (const point of actionPoints(action)) {
    if (image === undefined) {
      if (point.x < 0 || point.y < 0) return `coordinates ${describePoint(point)} are negative`;
    } else if (!pointInImage(point, image)) {
      return `coordinates ${describePoint(point)} outside the ${describeSize(image)} image`;
    }
  }
  return null;
}

/** Check every action; the first problem wins. */
export function checkActionsInImage(actions: readonly Action[], image: ImageSize | undefined): string | null {
  for (const action of actions) {
    const problem = checkActionInImage(action, image);
    if (problem !== null) return problem;
  }
  return null;
}

/** A point of an image of size `from` at the same place in an image of size `to` (not rounded). */
export function mapPoint(point: Point, from: ImageSize, to: ImageSize): Point {
  return { x: (point.x * to.width) / from.width, y: (point.y * to.height) / from.height };
}

/** The action with every coordinate mapped from an image of size `from` to one of size `to`. */
export function scaleAction(action: Action, from: ImageSize, to: ImageSize): Action {
  return mapActionCoordinates(
    action,
    (value) => (value * to.width) / from.width,
    (value) => (value * to.height) / from.height,
  );
}

/**
 * The action with every point passed through `map` (points, drag ends and paths). Every mapping
 * Mnemo makes scales each axis on its own, so each coordinate is mapped through a point on its axis.
 */
export function mapActionPoints(action: Action, map: (point: Point) => Point): Action {
  return mapActionCoordinates(
    action,
    (x) => map({ x, y: 0 }).x,
    (y) => map({ x: 0, y }).y,
  );
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Text trimmed, or null when nothing is left. */
export function nonEmpty(text: string | null | undefined): string | null {
  const trimmed = text?.trim() ?? '';
  return trimmed === '' ? null : trimmed;
}
