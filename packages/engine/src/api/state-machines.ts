import { randomUUID } from 'node:crypto';
import type { AliasRow, StateMachineRow, VersionRow } from '../store';
import { aliasArn, parseStateMachineArn, stateMachineArn, versionArn } from '../arns';
import {
  DEFINITION_LIMIT_BYTES,
  MAX_ALIASES_PER_STATE_MACHINE,
  MAX_JSON_NESTING_DEPTH,
  MAX_VERSIONS_PER_STATE_MACHINE,
} from '@autosave/workflow/config';
import { InvalidDefinitionError, type StateMachineType, type UnservedTask, validateDefinition } from '../definition';
import type { EngineContext } from '../engine-context';
import { howToServe } from '../executor/integration-catalog';
import { assertValidName } from '../names';
import {
  ConflictException,
  ResourceNotFound,
  ServiceQuotaExceededException,
  StateMachineAlreadyExists,
  StateMachineDoesNotExist,
  ValidationException,
} from '../service-errors';
import { byteLength, epochSeconds, nestsDeeperThan, optionalString, page, pageRequest, requireString } from './wire';

type Input = Record<string, unknown>;

const LOGGING_OFF = { level: 'OFF', includeExecutionData: false };
const TRACING_OFF = { enabled: false };

/** The role ARN recorded when a caller gives none (the local engine assumes no role). */
const defaultRole = (ctx: EngineContext) => `arn:aws:iam::${ctx.scope.accountId}:role/service-role/StepFunctions-local`;

/** Loads a state machine by its unqualified ARN or throws `StateMachineDoesNotExist`. */
export function requireStateMachine(ctx: EngineContext, arn: string): StateMachineRow {
  const row = ctx.store.getStateMachine(arn);
  if (!row) throw new StateMachineDoesNotExist(`State Machine Does Not Exist: '${arn}'`);
  return row;
}

function publishVersion(
  ctx: EngineContext,
  machine: StateMachineRow,
  description: string | undefined,
  nowMs: number,
): VersionRow {
  const latest = ctx.store.latestVersion(machine.arn);
  // Publishing an unchanged revision returns the version that already holds it, as the service does.
  if (latest && latest.revision_id === machine.revision_id) {
    if (description !== undefined && description !== (latest.description ?? undefined)) {
      throw new ConflictException(
        `Version ${latest.version} already holds revision ${machine.revision_id} with another description`,
      );
    }
    return latest;
  }
  if (ctx.store.countVersions(machine.arn) >= MAX_VERSIONS_PER_STATE_MACHINE)
    throw new ServiceQuotaExceededException('Too many versions');
  const version = machine.last_version + 1;
  const row: VersionRow = {
    arn: versionArn(machine.arn, version),
    machine_arn: machine.arn,
    version,
    definition_hash: machine.definition_hash,
    role_arn: machine.role_arn,
    revision_id: machine.revision_id,
    description: description ?? null,
    created_ms: nowMs,
  };
  ctx.store.insertVersion(row);
  return row;
}

/**
 * The `definition` field within the service's limits, before anything parses it: at most 1 MB (a field
 * constraint, so `ValidationException` as the service words those) and nested no deeper than
 * {@link MAX_JSON_NESTING_DEPTH} (`InvalidDefinition`).
 */
function boundedDefinition(input: Input): string {
  const definition = requireString(input, 'definition');
  if (byteLength(definition) > DEFINITION_LIMIT_BYTES) {
    throw new ValidationException(
      `1 validation error detected: Value at 'definition' failed to satisfy constraint: Member must have length less than or equal to ${DEFINITION_LIMIT_BYTES}`,
    );
  }
  refuseDeepDefinition(definition);
  return definition;
}

/**
 * Refuses a definition nested deeper than {@link MAX_JSON_NESTING_DEPTH} with `InvalidDefinition`, before
 * anything parses or walks it (CreateStateMachine, UpdateStateMachine, TestState).
 */
export function refuseDeepDefinition(definition: string): void {
  if (nestsDeeperThan(definition, MAX_JSON_NESTING_DEPTH)) {
    throw new InvalidDefinitionError([
      {
        code: 'SCHEMA_VALIDATION_FAILED',
        message: `the definition nests deeper than ${MAX_JSON_NESTING_DEPTH} levels`,
        location: '',
      },
    ]);
  }
}

/** Validates and prepares the request's definition once (for a machine of `type`), and remembers the prepared form for the executor. */
function readDefinition(ctx: EngineContext, input: Input, type: StateMachineType): string {
  const definition = boundedDefinition(input);
  ctx.definitions.remember(definition, validateDefinition(definition, { type }));
  return definition;
}

/** A new state machine's row (its first revision, no version published). */
export function newStateMachineRow(m: {
  arn: string;
  name: string;
  type: string;
  roleArn: string;
  definitionHash: string;
  nowMs: number;
  logging?: unknown;
  tracing?: unknown;
}): StateMachineRow {
  return {
    arn: m.arn,
    name: m.name,
    type: m.type,
    role_arn: m.roleArn,
    definition_hash: m.definitionHash,
    revision_id: randomUUID(),
    description: null,
    logging: m.logging ? JSON.stringify(m.logging) : null,
    tracing: m.tracing ? JSON.stringify(m.tracing) : null,
    created_ms: m.nowMs,
    updated_ms: null,
    last_version: 0,
  };
}

/** CreateStateMachine: idempotent when the same name comes with the same definition and role. */
export function createStateMachine(ctx: EngineContext, input: Input): Promise<object> {
  const name = assertValidName(requireString(input, 'name'), 'Name');
  const type = optionalString(input, 'type') ?? 'STANDARD';
  if (type !== 'STANDARD' && type !== 'EXPRESS') throw new ValidationException(`Invalid type '${type}'`);
  const definition = readDefinition(ctx, input, type);
  const roleArn = optionalString(input, 'roleArn') ?? defaultRole(ctx);
  const versionDescription = optionalString(input, 'versionDescription');
  if (versionDescription !== undefined && input.publish !== true) {
    throw new ValidationException('versionDescription requires publish=true');
  }
  const arn = stateMachineArn(ctx.scope, name);
  const nowMs = ctx.clock.now();
  return ctx.store.committer.commit(() => {
    const hash = ctx.store.putDefinition(definition);
    const existing = ctx.store.getStateMachine(arn);
    if (existing) {
      if (existing.definition_hash !== hash || existing.role_arn !== roleArn || existing.type !== type) {
        throw new StateMachineAlreadyExists(`State Machine Already Exists: '${arn}'`);
      }
      const published = input.publish === true ? publishVersion(ctx, existing, versionDescription, nowMs) : undefined;
      return {
        stateMachineArn: arn,
        creationDate: epochSeconds(existing.created_ms),
        ...(published ? { stateMachineVersionArn: published.arn } : {}),
      };
    }
    const row = newStateMachineRow({
      arn,
      name,
      type,
      roleArn,
      definitionHash: hash,
      nowMs,
      logging: input.loggingConfiguration,
      tracing: input.tracingConfiguration,
    });
    ctx.store.insertStateMachine(row);
    const published = input.publish === true ? publishVersion(ctx, row, versionDescription, nowMs) : undefined;
    return {
      stateMachineArn: arn,
      creationDate: epochSeconds(nowMs),
      ...(published ? { stateMachineVersionArn: published.arn } : {}),
    };
  });
}

function unqualifiedMachine(ctx: EngineContext, arnInput: unknown): StateMachineRow {
  const target = parseStateMachineArn(arnInput);
  if (target.kind !== 'stateMachine')
    throw new ValidationException(`Expected an unqualified state machine ARN: '${String(arnInput)}'`);
  return requireStateMachine(ctx, target.stateMachineArn);
}

/** UpdateStateMachine: a new revision (running executions keep theirs), optionally published. */
export function updateStateMachine(ctx: EngineContext, input: Input): Promise<object> {
  const machine = unqualifiedMachine(ctx, requireString(input, 'stateMachineArn'));
  const definition =
    input.definition === undefined ? undefined : readDefinition(ctx, input, machine.type as StateMachineType);
  const roleArn = optionalString(input, 'roleArn');
  const versionDescription = optionalString(input, 'versionDescription');
  if (
    definition === undefined &&
    roleArn === undefined &&
    input.loggingConfiguration === undefined &&
    input.tracingConfiguration === undefined
  ) {
    throw new ValidationException(
      'At least one of definition, roleArn, loggingConfiguration or tracingConfiguration is required',
    );
  }
  const nowMs = ctx.clock.now();
  return ctx.store.committer.commit(() => {
    const hash = definition === undefined ? machine.definition_hash : ctx.store.putDefinition(definition);
    const role = roleArn ?? machine.role_arn;
    const changed = hash !== machine.definition_hash || role !== machine.role_arn;
    const revisionId = changed ? randomUUID() : machine.revision_id;
    ctx.store.updateStateMachine(machine.arn, {
      definitionHash: hash,
      roleArn: role,
      revisionId,
      updatedMs: nowMs,
      logging: input.loggingConfiguration ? JSON.stringify(input.loggingConfiguration) : null,
      tracing: input.tracingConfiguration ? JSON.stringify(input.tracingConfiguration) : null,
    });
    const updated = requireStateMachine(ctx, machine.arn);
    const published = input.publish === true ? publishVersion(ctx, updated, versionDescription, nowMs) : undefined;
    return {
      updateDate: epochSeconds(nowMs),
      revisionId,
      ...(published ? { stateMachineVersionArn: published.arn } : {}),
    };
  });
}

/** DescribeStateMachine for a state machine or a version ARN. */
export function describeStateMachine(ctx: EngineContext, input: Input): object {
  const target = parseStateMachineArn(requireString(input, 'stateMachineArn'));
  const machine = requireStateMachine(ctx, target.stateMachineArn);
  const common = {
    name: machine.name,
    status: 'ACTIVE',
    type: machine.type,
    loggingConfiguration: machine.logging ? JSON.parse(machine.logging) : LOGGING_OFF,
    tracingConfiguration: machine.tracing ? JSON.parse(machine.tracing) : TRACING_OFF,
  };
  if (target.kind === 'version') {
    const version = ctx.store.getVersion(versionArn(machine.arn, target.version));
    if (!version)
      throw new StateMachineDoesNotExist(`State Machine Does Not Exist: '${String(input.stateMachineArn)}'`);
    return {
      stateMachineArn: version.arn,
      ...common,
      definition: ctx.store.getDefinition(version.definition_hash),
      roleArn: version.role_arn,
      creationDate: epochSeconds(version.created_ms),
      revisionId: version.revision_id,
      ...(version.description !== null ? { description: version.description } : {}),
    };
  }
  if (target.kind === 'alias') throw new ValidationException('Use DescribeStateMachineAlias for alias ARNs');
  return {
    stateMachineArn: machine.arn,
    ...common,
    definition: ctx.store.getDefinition(machine.definition_hash),
    roleArn: machine.role_arn,
    creationDate: epochSeconds(machine.created_ms),
    revisionId: machine.revision_id,
  };
}

/** ListStateMachines, by name. */
export function listStateMachines(ctx: EngineContext, input: Input): object {
  const rows = ctx.store.listStateMachines();
  const { items, nextToken } = page(rows, pageRequest(input));
  return {
    stateMachines: items.map((r) => ({
      stateMachineArn: r.arn,
      name: r.name,
      type: r.type,
      creationDate: epochSeconds(r.created_ms),
    })),
    ...(nextToken ? { nextToken } : {}),
  };
}

/** DeleteStateMachine: the machine, its versions and aliases go; its executions keep their pinned definitions. */
export async function deleteStateMachine(ctx: EngineContext, input: Input): Promise<object> {
  const target = parseStateMachineArn(requireString(input, 'stateMachineArn'));
  await ctx.store.committer.commit(() => {
    if (target.kind === 'version') {
      const arn = versionArn(target.stateMachineArn, target.version);
      const routings = ctx.store.aliasRoutings(target.stateMachineArn);
      if (
        routings.some((routing) =>
          (JSON.parse(routing) as { stateMachineVersionArn: string }[]).some((r) => r.stateMachineVersionArn === arn),
        )
      ) {
        throw new ConflictException(`Version ${arn} is referenced by an alias`);
      }
      ctx.store.deleteVersion(arn);
      return;
    }
    if (target.kind === 'alias') {
      ctx.store.deleteAlias(aliasArn(target.stateMachineArn, target.alias));
      return;
    }
    ctx.store.deleteStateMachine(target.stateMachineArn);
  });
  return {};
}

/** PublishStateMachineVersion. */
export async function publishStateMachineVersion(ctx: EngineContext, input: Input): Promise<object> {
  const machine = unqualifiedMachine(ctx, requireString(input, 'stateMachineArn'));
  const revisionId = optionalString(input, 'revisionId');
  if (revisionId !== undefined && revisionId !== machine.revision_id) {
    throw new ConflictException(`revisionId ${revisionId} is not the latest revision (${machine.revision_id})`);
  }
  const version = await ctx.store.committer.commit(() =>
    publishVersion(ctx, machine, optionalString(input, 'description'), ctx.clock.now()),
  );
  return { creationDate: epochSeconds(version.created_ms), stateMachineVersionArn: version.arn };
}

/** ListStateMachineVersions, newest first. */
export function listStateMachineVersions(ctx: EngineContext, input: Input): object {
  const machine = unqualifiedMachine(ctx, requireString(input, 'stateMachineArn'));
  const rows = ctx.store.listVersions(machine.arn);
  const { items, nextToken } = page(rows, pageRequest(input));
  return {
    stateMachineVersions: items.map((r) => ({
      stateMachineVersionArn: r.arn,
      creationDate: epochSeconds(r.created_ms),
    })),
    ...(nextToken ? { nextToken } : {}),
  };
}

// ---- aliases -------------------------------------------------------------------------------------------

/** One entry of an alias's `routingConfiguration`. */
export interface RoutingEntry {
  readonly stateMachineVersionArn: string;
  readonly weight: number;
}

function readRouting(
  ctx: EngineContext,
  input: Input,
  machineArn?: string,
): { machineArn: string; routing: RoutingEntry[] } {
  const routing = input.routingConfiguration;
  if (!Array.isArray(routing) || routing.length < 1 || routing.length > 2) {
    throw new ValidationException('routingConfiguration must list one or two versions');
  }
  let machine = machineArn;
  const entries: RoutingEntry[] = routing.map((r: Record<string, unknown>) => {
    const target = parseStateMachineArn(r?.stateMachineVersionArn);
    if (target.kind !== 'version')
      throw new ValidationException(`Not a version ARN: '${String(r?.stateMachineVersionArn)}'`);
    if (machine !== undefined && machine !== target.stateMachineArn)
      throw new ValidationException('All versions must belong to one state machine');
    machine = target.stateMachineArn;
    if (!ctx.store.getVersion(r.stateMachineVersionArn as string))
      throw new ResourceNotFound(`Resource not found: '${String(r.stateMachineVersionArn)}'`);
    const weight = r.weight;
    if (typeof weight !== 'number' || !Number.isInteger(weight) || weight < 0 || weight > 100)
      throw new ValidationException('weight must be an integer 0-100');
    return { stateMachineVersionArn: r.stateMachineVersionArn as string, weight };
  });
  if (entries.reduce((s, e) => s + e.weight, 0) !== 100)
    throw new ValidationException('Sum of routing weights must be 100');
  if (entries.length === 2 && entries[0].stateMachineVersionArn === entries[1].stateMachineVersionArn) {
    throw new ValidationException('routingConfiguration lists the same version twice');
  }
  return { machineArn: machine as string, routing: entries };
}

function requireAlias(ctx: EngineContext, arnInput: unknown): AliasRow {
  const target = parseStateMachineArn(arnInput);
  if (target.kind !== 'alias') throw new ValidationException(`Not an alias ARN: '${String(arnInput)}'`);
  const row = ctx.store.getAlias(aliasArn(target.stateMachineArn, target.alias));
  if (!row) throw new ResourceNotFound(`Resource not found: '${String(arnInput)}'`);
  return row;
}

/** CreateStateMachineAlias: idempotent when the same alias comes with the same routing and description. */
export function createStateMachineAlias(ctx: EngineContext, input: Input): Promise<object> {
  const name = assertValidName(requireString(input, 'name'), 'Alias name');
  if (/^\d+$/.test(name)) throw new ValidationException('An alias name cannot be a number');
  const { machineArn, routing } = readRouting(ctx, input);
  requireStateMachine(ctx, machineArn);
  const description = optionalString(input, 'description') ?? null;
  const arn = aliasArn(machineArn, name);
  const nowMs = ctx.clock.now();
  return ctx.store.committer.commit(() => {
    const existing = ctx.store.getAlias(arn);
    if (existing) {
      if (existing.routing !== JSON.stringify(routing) || existing.description !== description) {
        throw new ConflictException(`Alias ${arn} already exists with another configuration`);
      }
      return { stateMachineAliasArn: arn, creationDate: epochSeconds(existing.created_ms) };
    }
    if (ctx.store.countAliases(machineArn) >= MAX_ALIASES_PER_STATE_MACHINE)
      throw new ServiceQuotaExceededException('Too many aliases');
    ctx.store.insertAlias({
      arn,
      machine_arn: machineArn,
      name,
      description,
      routing: JSON.stringify(routing),
      created_ms: nowMs,
      updated_ms: nowMs,
    });
    return { stateMachineAliasArn: arn, creationDate: epochSeconds(nowMs) };
  });
}

/** UpdateStateMachineAlias: new routing and/or description. */
export async function updateStateMachineAlias(ctx: EngineContext, input: Input): Promise<object> {
  const alias = requireAlias(ctx, requireString(input, 'stateMachineAliasArn'));
  const routing =
    input.routingConfiguration === undefined ? undefined : readRouting(ctx, input, alias.machine_arn).routing;
  const description = optionalString(input, 'description');
  if (routing === undefined && description === undefined) throw new ValidationException('Nothing to update');
  const nowMs = ctx.clock.now();
  await ctx.store.committer.commit(() =>
    ctx.store.updateAlias(alias.arn, routing ? JSON.stringify(routing) : null, description ?? null, nowMs),
  );
  return { updateDate: epochSeconds(nowMs) };
}

/** DescribeStateMachineAlias. */
export function describeStateMachineAlias(ctx: EngineContext, input: Input): object {
  const alias = requireAlias(ctx, requireString(input, 'stateMachineAliasArn'));
  return {
    stateMachineAliasArn: alias.arn,
    name: alias.name,
    ...(alias.description !== null ? { description: alias.description } : {}),
    routingConfiguration: JSON.parse(alias.routing),
    creationDate: epochSeconds(alias.created_ms),
    updateDate: epochSeconds(alias.updated_ms),
  };
}

/** ListStateMachineAliases. */
export function listStateMachineAliases(ctx: EngineContext, input: Input): object {
  const machine = unqualifiedMachine(ctx, requireString(input, 'stateMachineArn'));
  const rows = ctx.store.listAliases(machine.arn);
  const { items, nextToken } = page(rows, pageRequest(input));
  return {
    stateMachineAliases: items.map((r) => ({ stateMachineAliasArn: r.arn, creationDate: epochSeconds(r.created_ms) })),
    ...(nextToken ? { nextToken } : {}),
  };
}

/** DeleteStateMachineAlias. */
export async function deleteStateMachineAlias(ctx: EngineContext, input: Input): Promise<object> {
  const alias = requireAlias(ctx, requireString(input, 'stateMachineAliasArn'));
  await ctx.store.committer.commit(() => ctx.store.deleteAlias(alias.arn));
  return {};
}

/** Picks the version a new start through `alias` runs on, by weight. */
export function routeAlias(ctx: EngineContext, alias: AliasRow): string {
  const routing = JSON.parse(alias.routing) as RoutingEntry[];
  const roll = ctx.random() * 100;
  let acc = 0;
  for (const entry of routing) {
    acc += entry.weight;
    if (roll < acc) return entry.stateMachineVersionArn;
  }
  return routing.filter((r) => r.weight > 0).at(-1)?.stateMachineVersionArn ?? routing[0].stateMachineVersionArn;
}

/** The warning of a Task the engine does not serve, as a diagnostic (and a line for `autosave local` and the console). */
export function unservedDiagnostic(task: UnservedTask): {
  severity: 'WARNING';
  code: string;
  message: string;
  location: string;
} {
  return {
    severity: 'WARNING',
    code: 'INTEGRATION_NOT_SERVED',
    message: `Task state '${task.state}' calls ${task.resource}, which the local engine accepts but does not serve: a run fails there with Local.IntegrationNotServed. ${howToServe(task.resource)}`,
    location: task.location,
  };
}

/**
 * ValidateStateMachineDefinition: `OK`, or `FAIL` with one diagnostic per problem (state, field, code).
 * An `OK` lists as WARNINGs the Tasks the engine accepts but does not serve (AWS's own diagnostics have
 * that severity for what does not stop a definition).
 */
export function validateStateMachineDefinition(_ctx: EngineContext, input: Input): object {
  try {
    const prepared = validateDefinition(boundedDefinition(input), {
      type: input.type === 'EXPRESS' ? 'EXPRESS' : 'STANDARD',
    });
    return { result: 'OK', diagnostics: prepared.unservedTasks.map(unservedDiagnostic), truncated: false };
  } catch (err) {
    if (!(err instanceof InvalidDefinitionError)) throw err;
    return {
      result: 'FAIL',
      diagnostics: err.problems.map((p) => ({
        severity: 'ERROR',
        code: p.code,
        message: p.message,
        ...(p.location ? { location: p.location } : {}),
      })),
      truncated: false,
    };
  }
}
