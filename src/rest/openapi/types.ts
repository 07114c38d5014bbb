/**
 * The parts of OpenAPI 3.1 (and its JSON Schema 2020-12 dialect) this service's document uses: typed, so that
 * the routes' descriptions, the answers' schemas and the MCP tools' arguments taken from them are checked as
 * they are written.
 */

export type JsonType = "string" | "integer" | "number" | "boolean" | "object" | "array" | "null";

export type JsonScalar = string | number | boolean | null;

export interface Schema {
  $ref?: string;
  description?: string;
  type?: JsonType | JsonType[];
  format?: string;
  enum?: readonly JsonScalar[];
  const?: JsonScalar;
  default?: unknown;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  minProperties?: number;
  pattern?: string;
  items?: Schema;
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: boolean;
  oneOf?: Schema[];
  readOnly?: boolean;
  deprecated?: boolean;
  examples?: unknown[];
}

export interface Ref {
  $ref: string;
}

export interface Header {
  description: string;
  required?: boolean;
  schema: Schema;
}

export interface Parameter {
  name: string;
  in: "path" | "query" | "header";
  description: string;
  required?: boolean;
  deprecated?: boolean;
  schema: Schema;
  example?: unknown;
}

export interface MediaType {
  schema: Schema;
  example?: unknown;
  examples?: Record<string, { summary: string; value: unknown }>;
}

export interface RequestBody {
  required: boolean;
  content: Record<string, MediaType>;
}

export interface Response {
  description: string;
  headers?: Record<string, Header | Ref>;
  content?: Record<string, MediaType>;
}

export type SecurityRequirement = Record<string, string[]>;

export interface Operation {
  operationId: string;
  tags: string[];
  summary: string;
  description?: string;
  deprecated?: boolean;
  security?: SecurityRequirement[];
  parameters?: (Parameter | Ref)[];
  requestBody?: RequestBody;
  responses: Record<string, Response>;
}

export type Method = "get" | "post" | "put" | "patch" | "delete";

export type PathItem = Partial<Record<Method, Operation>>;

export interface SecurityScheme {
  type: "http" | "apiKey";
  description: string;
  scheme?: string;
  in?: "header";
  name?: string;
}

export interface Tag {
  name: string;
  description: string;
}

export interface OpenApiDocument {
  openapi: "3.1.0";
  info: { title: string; version: string; description: string };
  tags: Tag[];
  security: SecurityRequirement[];
  paths: Record<string, PathItem>;
  components: {
    schemas: Record<string, Schema>;
    headers: Record<string, Header>;
    parameters: Record<string, Parameter>;
    securitySchemes: Record<string, SecurityScheme>;
  };
}

/** A `$ref` to a component. */
export const ref = (kind: "schemas" | "headers" | "parameters", name: string): Ref => ({ $ref: `#/components/${kind}/${name}` });

/** The component name a `$ref` points at. */
export const refName = (target: string): string => target.slice(target.lastIndexOf("/") + 1);
