/**
 * The AT-SPI2 calls Mnemo makes, over one D-Bus connection to a display's accessibility bus
 * (dbus-next, plain messages: no introspection round trip per object).
 *
 * Every call has its own time limit: an application that hangs (busy, or stopped in a debugger)
 * never answers, and D-Bus itself would wait for ever. A call that fails or runs out of time is
 * `undefined` to its caller, which treats the object as gone: one broken application or element
 * never spoils the rest of a snapshot.
 */
import type { MessageBus } from 'dbus-next';
import { loadDbus, type DBus } from './dbus';
import type { Rect } from '../../../shared/frame';

export interface ObjectAddress {
  /** The application's unique name on the bus (`:1.42`). */
  app: string;
  path: string;
}

const ACCESSIBLE = 'org.a11y.atspi.Accessible';
const COMPONENT = 'org.a11y.atspi.Component';
const TEXT = 'org.a11y.atspi.Text';
const VALUE = 'org.a11y.atspi.Value';
const COLLECTION = 'org.a11y.atspi.Collection';
const PROPERTIES = 'org.freedesktop.DBus.Properties';
export const REGISTRY: ObjectAddress = { app: 'org.a11y.atspi.Registry', path: '/org/a11y/atspi/accessible/root' };

/** ATSPI_COORD_TYPE_SCREEN: extents and points in screen pixels. */
const SCREEN_COORDS = 0;
/** ATSPI_Collection_SORT_ORDER_CANONICAL (0, "invalid", returns nothing). */
const CANONICAL_ORDER = 1;
/** ATSPI_Collection_MATCH_ALL: an empty set under "all" matches everything. */
const MATCH_ALL = 1;
const MATCH_ANY = 2;

/**
 * A Collection match rule: states every match has, roles one of which it has (none: any role).
 * (Never "none of these roles": at-spi2's match of that is off by one, found by trying.)
 */
export interface MatchRule {
  states: readonly number[];
  roles?: readonly number[];
}

const DEFAULT_CALL_TIMEOUT_MS = 1500;

export class AtspiClient {
  private constructor(
    private readonly dbus: DBus,
    private readonly bus: MessageBus,
    private readonly callTimeoutMs: number,
  ) {}

  /** Connects to the accessibility bus at `address`; a message when it does not answer. */
  static async connect(address: string, options: { timeoutMs?: number; callTimeoutMs?: number } = {}): Promise<{ ok: true; client: AtspiClient } | { ok: false; message: string }> {
    const dbus = await loadDbus();
    let bus: MessageBus;
    try {
      bus = dbus.sessionBus({ busAddress: address });
    } catch (error) {
      return { ok: false, message: `cannot connect to the accessibility bus ${address}: ${messageOf(error)}` };
    }
    const failed = new Promise<string>((resolve) => bus.on('error', (error: unknown) => resolve(messageOf(error))));
    const client = new AtspiClient(dbus, bus, options.callTimeoutMs ?? DEFAULT_CALL_TIMEOUT_MS);
    // The registry answering is the proof the bus is up and is an accessibility bus.
    const answered = client.registryAnswers(options.timeoutMs ?? 5000);
    const outcome = await Promise.race([answered.then((ok) => (ok ? null : 'the registry did not answer')), failed]);
    if (outcome !== null) {
      client.close();
      return { ok: false, message: `cannot read the accessibility bus ${address}: ${outcome}` };
    }
    return { ok: true, client };
  }

  private async registryAnswers(timeoutMs: number): Promise<boolean> {
    const reply = await this.call(REGISTRY, ACCESSIBLE, 'GetChildren', '', [], timeoutMs);
    return reply !== undefined;
  }

  close(): void {
    try {
      this.bus.disconnect();
    } catch {
      // Already gone.
    }
  }

  /** One method call, its reply's body, or undefined when it failed or ran out of time. */
  private async call(target: ObjectAddress, iface: string, member: string, signature = '', body: unknown[] = [], timeoutMs = this.callTimeoutMs): Promise<unknown[] | undefined> {
    const message = new this.dbus.Message({ destination: target.app, path: target.path, interface: iface, member, signature, body });
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), timeoutMs)));
    try {
      const reply = await Promise.race([this.bus.call(message).catch(() => null), timedOut]);
      return reply ? (reply.body as unknown[]) : undefined;
    } finally {
      clearTimeout(timer);
    }
  }

  private async property(target: ObjectAddress, iface: string, name: string): Promise<unknown> {
    const body = await this.call(target, PROPERTIES, 'Get', 'ss', [iface, name]);
    const variant = body?.[0] as { value?: unknown } | undefined;
    return variant?.value;
  }

  async children(target: ObjectAddress): Promise<ObjectAddress[] | undefined> {
    const body = await this.call(target, ACCESSIBLE, 'GetChildren');
    return body ? addressesOf(body[0]) : undefined;
  }

  async role(target: ObjectAddress): Promise<number | undefined> {
    const body = await this.call(target, ACCESSIBLE, 'GetRole');
    return typeof body?.[0] === 'number' ? body[0] : undefined;
  }

  async roleName(target: ObjectAddress): Promise<string | undefined> {
    const body = await this.call(target, ACCESSIBLE, 'GetRoleName');
    return typeof body?.[0] === 'string' ? body[0] : undefined;
  }

  /** The state set as AT-SPI sends it: two 32-bit words of flags. */
  async states(target: ObjectAddress): Promise<number[] | undefined> {
    const body = await this.call(target, ACCESSIBLE, 'GetState');
    return Array.isArray(body?.[0]) ? (body[0] as number[]) : undefined;
  }

  async name(target: ObjectAddress): Promise<string | undefined> {
    const value = await this.property(target, ACCESSIBLE, 'Name');
    return typeof value === 'string' ? value : undefined;
  }

  async interfaces(target: ObjectAddress): Promise<string[] | undefined> {
    const body = await this.call(target, ACCESSIBLE, 'GetInterfaces');
    return Array.isArray(body?.[0]) ? (body[0] as string[]) : undefined;
  }

  /** The object's parent; undefined at the top (the registry's null object) or when it did not answer. */
  async parent(target: ObjectAddress): Promise<ObjectAddress | undefined> {
    const value = await this.property(target, ACCESSIBLE, 'Parent');
    return addressesOf([value])[0];
  }

  /** Screen extents in pixels. */
  async extents(target: ObjectAddress): Promise<Rect | undefined> {
    const body = await this.call(target, COMPONENT, 'GetExtents', 'u', [SCREEN_COORDS]);
    const box = body?.[0];
    if (!Array.isArray(box) || box.length !== 4) return undefined;
    const [x, y, width, height] = box as number[];
    return { x: x as number, y: y as number, width: width as number, height: height as number };
  }

  /**
   * Component.GetAccessibleAtPoint: the child of `target` whose box holds a screen point (not the
   * deepest element: one level down). Null when the application answered that no child is there;
   * undefined when it did not answer (or has no Component).
   */
  async accessibleAtPoint(target: ObjectAddress, point: { x: number; y: number }, timeoutMs?: number): Promise<ObjectAddress | null | undefined> {
    const body = await this.call(target, COMPONENT, 'GetAccessibleAtPoint', 'iiu', [Math.round(point.x), Math.round(point.y), SCREEN_COORDS], timeoutMs);
    if (!body) return undefined;
    return addressesOf([body[0]])[0] ?? null;
  }

  /** The whole text of a Text object. */
  async text(target: ObjectAddress): Promise<string | undefined> {
    const body = await this.call(target, TEXT, 'GetText', 'ii', [0, -1]);
    return typeof body?.[0] === 'string' ? body[0] : undefined;
  }

  /** How many characters a Text object holds: a password field's length, without its text. */
  async characterCount(target: ObjectAddress): Promise<number | undefined> {
    const value = await this.property(target, TEXT, 'CharacterCount');
    return typeof value === 'number' ? value : undefined;
  }

  /** A Value object's current number. */
  async currentValue(target: ObjectAddress): Promise<number | undefined> {
    const value = await this.property(target, VALUE, 'CurrentValue');
    return typeof value === 'number' ? value : undefined;
  }

  /**
   * Collection.GetMatches under `target`, in document order, at most `count`; undefined when the
   * application has no Collection (or failed), so the caller walks instead.
   */
  async matches(target: ObjectAddress, rule: MatchRule, count: number, timeoutMs?: number): Promise<ObjectAddress[] | undefined> {
    const matchRule = [
      bitSet(rule.states, 2),
      MATCH_ALL,
      {},
      MATCH_ALL,
      bitSet(rule.roles ?? [], 4),
      rule.roles && rule.roles.length > 0 ? MATCH_ANY : MATCH_ALL,
      [],
      MATCH_ALL,
      false,
    ];
    const body = await this.call(target, COLLECTION, 'GetMatches', '(aiia{ss}iaiiasib)uib', [matchRule, CANONICAL_ORDER, count, true], timeoutMs);
    return body ? addressesOf(body[0]) : undefined;
  }
}

/** AT-SPI's bit sets (states, roles) travel as arrays of 32-bit words. */
function bitSet(bits: readonly number[], words: number): number[] {
  const set = new Array<number>(words).fill(0);
  for (const bit of bits) {
    const word = Math.floor(bit / 32);
    if (word < words) set[word] = ((set[word] as number) | (1 << (bit % 32))) >>> 0;
  }
  // D-Bus `ai` is signed.
  return set.map((word) => word | 0);
}

/** AT-SPI's "no object". */
const NULL_PATH = '/org/a11y/atspi/null';

function addressesOf(value: unknown): ObjectAddress[] {
  if (!Array.isArray(value)) return [];
  return value
    .filter((pair): pair is [string, string] => Array.isArray(pair) && typeof pair[0] === 'string' && typeof pair[1] === 'string' && pair[1] !== NULL_PATH)
    .map(([app, path]) => ({ app, path }));
}

function messageOf(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}
