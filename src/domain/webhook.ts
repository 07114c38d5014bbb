import { randomBytes } from "node:crypto";
import type { Principal } from "./principal.ts";
import type { WebhookSettings } from "../config.ts";
import type { Database } from "../db/database.ts";
import { invalid, notFound } from "../errors.ts";
import { EVENT_TYPES, type EventType } from "../events/change-event.ts";
import type { Webhook, WebhookDelivery, WebhookDeliveryStatus } from "../generated/prisma/client.ts";
import { addressesOf, hostOf, isPublicAddress } from "../webhooks/address-guard.ts";
import { isUuid, newId } from "./ids.ts";
import { checkPage, pageOf, type PageOf } from "./paging.ts";
import { checkText } from "./text-field.ts";
import { deliveriesPage } from "./webhook-deliveries.ts";

export type { Webhook, WebhookDelivery, WebhookDeliveryStatus };

export const MAX_WEBHOOKS = 20;
export const MAX_URL_CHARS = 2048;
export const MAX_WEBHOOK_DESCRIPTION_CHARS = 500;
export const DEFAULT_DELIVERY_LIMIT = 20;

export interface WebhookInput {
  url: string;
  events?: readonly EventType[] | null;
  description?: string | null;
}

/** A webhook with its signing secret: only the answer to its creation and to a rotation carries the secret. */
export interface WebhookWithSecret {
  webhook: Webhook;
  secret: string;
}

// Standard Webhooks' form: whsec_ and the base64 of the key (24 bytes: what its reference libraries make)
const newSecret = () => `whsec_${randomBytes(24).toString("base64")}`;

/** A user's webhook endpoints; the deliveries themselves are the DeliveryWorker's. */
export class WebhookService {
  constructor(
    private readonly db: Database,
    private readonly settings: WebhookSettings,
  ) {}

  async create(principal: Principal, input: WebhookInput): Promise<WebhookWithSecret> {
    const url = await this.checkUrl(input.url);
    const events = input.events?.length ? [...new Set(input.events)] : [...EVENT_TYPES];
    const description = input.description == null ? null : checkText("description", input.description, MAX_WEBHOOK_DESCRIPTION_CHARS);
    const secret = newSecret();
    const id = newId();
    // the count and the insert under the user's row lock: creates sent at once would each count the others out
    await this.db.sql.transaction(async (sql) => {
      await sql.query("SELECT 1 FROM users WHERE id = $1::uuid FOR UPDATE", [principal.userId]);
      const [{ count }] = (await sql.query<{ count: number }>(
        "SELECT count(*)::int AS count FROM webhooks WHERE user_id = $1::uuid",
        [principal.userId],
      )) as [{ count: number }];
      if (count >= MAX_WEBHOOKS) throw invalid("url", `cannot be added: you have ${MAX_WEBHOOKS} webhooks already, the most allowed`);
      await sql.query(
        "INSERT INTO webhooks (id, user_id, url, events, description, secret) VALUES ($1::uuid, $2::uuid, $3, $4::text[], $5, $6)",
        [id, principal.userId, url, events, description, secret],
      );
    });
    return { webhook: await this.db.prisma.webhook.findUniqueOrThrow({ where: { id } }), secret };
  }

  list(principal: Principal): Promise<Webhook[]> {
    return this.db.prisma.webhook.findMany({ where: { userId: principal.userId }, orderBy: [{ createdAt: "asc" }, { id: "asc" }] });
  }

  async delete(principal: Principal, id: string): Promise<void> {
    if (!isUuid(id)) throw notFound("Webhook");
    const { count } = await this.db.prisma.webhook.deleteMany({ where: { id, userId: principal.userId } });
    if (count === 0) throw notFound("Webhook");
  }

  /**
   * A new signing secret. The old one signs every delivery as well for the overlap (WEBHOOK_SECRET_OVERLAP_HOURS),
   * so that the endpoint can take the new one meanwhile; a second rotation ends the first one's overlap.
   */
  async rotateSecret(principal: Principal, id: string): Promise<WebhookWithSecret> {
    if (!isUuid(id)) throw notFound("Webhook");
    const secret = newSecret();
    // one statement: previous_secret takes the secret the row held, not the one set beside it
    const rotated = await this.db.sql.query<{ id: string }>(
      `UPDATE webhooks
          SET previous_secret = CASE WHEN $4 > 0 THEN secret END,
              previous_secret_until = CASE WHEN $4 > 0 THEN now() + $4 * interval '1 millisecond' END,
              secret = $3
        WHERE id = $1::uuid AND user_id = $2::uuid
      RETURNING id`,
      [id, principal.userId, secret, this.settings.secretOverlapMs],
    );
    const webhook = rotated.length ? await this.db.prisma.webhook.findUnique({ where: { id } }) : null;
    if (!webhook) throw notFound("Webhook");
    return { webhook, secret };
  }

  /**
   * Sends to a disabled endpoint again, from the next event on: what failed while it was disabled stays failed.
   * Its failing streak starts afresh (enabling an enabled endpoint changes nothing else).
   */
  async enable(principal: Principal, id: string): Promise<Webhook> {
    if (!isUuid(id)) throw notFound("Webhook");
    await this.db.prisma.webhook.updateMany({
      where: { id, userId: principal.userId, enabled: false },
      data: { enabled: true, disabledReason: null, failingSince: null },
    });
    const webhook = await this.db.prisma.webhook.findFirst({ where: { id, userId: principal.userId } });
    if (!webhook) throw notFound("Webhook");
    return webhook;
  }

  /** The deliveries to one of the user's endpoints, newest first. */
  async deliveries(
    principal: Principal,
    webhookId: string,
    status: WebhookDeliveryStatus | null | undefined,
    limit: number | null | undefined,
    offset: number | null | undefined,
  ): Promise<PageOf<WebhookDelivery>> {
    const page = checkPage(limit, offset, DEFAULT_DELIVERY_LIMIT);
    if (!isUuid(webhookId)) throw notFound("Webhook");
    const owned = await this.db.prisma.webhook.count({ where: { id: webhookId, userId: principal.userId } });
    if (!owned) throw notFound("Webhook");
    const { items, total } = await deliveriesPage(this.db.sql, webhookId, status ?? null, page);
    return pageOf(items, total, page);
  }

  /** https, no credentials, and (unless private addresses are allowed) only public addresses. */
  private async checkUrl(raw: string): Promise<string> {
    const tooLong = `must be at most ${MAX_URL_CHARS} characters, as a URL (percent-encoded)`;
    if (raw.length > MAX_URL_CHARS) throw invalid("url", tooLong);
    if (!URL.canParse(raw)) throw invalid("url", "must be an absolute URL");
    const url = new URL(raw);
    // what is stored and sent to: a character outside ASCII can take 12 as sent percent-encoded
    if (url.href.length > MAX_URL_CHARS) throw invalid("url", tooLong);
    const schemes = this.settings.allowPrivate ? ["https:", "http:"] : ["https:"];
    if (!schemes.includes(url.protocol)) throw invalid("url", "must be an https:// URL");
    if (url.username || url.password) throw invalid("url", "must not carry a user name or password");
    // a connection to port 0 is refused by every system: the endpoint would only fail until it is disabled
    if (url.port === "0") throw invalid("url", "must not name port 0");
    if (!this.settings.allowPrivate) {
      const addresses = await addressesOf(hostOf(url)).catch(() => {
        throw invalid("url", "names a host that does not resolve");
      });
      if (addresses.length === 0 || !addresses.every(isPublicAddress)) {
        throw invalid("url", "must not reach a loopback, private, link-local or metadata address");
      }
    }
    return url.href;
  }
}

