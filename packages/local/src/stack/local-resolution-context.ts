import {
  AwsResolutionContext,
  IntrinsicResolutionError,
  type PseudoParameter,
  type ResolutionContext,
  type TemplateResolver,
} from '../cloud-assembly';

/** What `Ref` and `Fn::GetAtt` of one applied resource resolve to. */
export interface AppliedAttributes {
  /** The value of `Ref`. */
  readonly Ref: string;
  /** Every `Fn::GetAtt` attribute the resource has locally. */
  readonly [attribute: string]: string;
}

/** Options of {@link LocalResolutionContext}. */
export interface LocalResolutionContextOptions {
  readonly stackName: string;
  readonly region: string;
  readonly account: string;
  /** The attributes of every resource applied so far (this deployment's and the last one's), by logical id. */
  readonly applied: ReadonlyMap<string, AppliedAttributes>;
}

/**
 * Resolves a template's references to **local** values: a resource the engine has applied resolves to
 * what it really is here (the published version's number, the queue's local URL, the state machine's
 * revision id, the Function URL on the engine port); a resource it has not applied (yet, or never: a type
 * it does not emulate) to the name CloudFormation would give it, by lib/cloud-assembly's AWS context.
 */
export class LocalResolutionContext implements ResolutionContext {
  private readonly aws: AwsResolutionContext;
  private readonly applied: ReadonlyMap<string, AppliedAttributes>;

  constructor(options: LocalResolutionContextOptions) {
    this.aws = new AwsResolutionContext({
      stackName: options.stackName,
      region: options.region,
      account: options.account,
    });
    this.applied = options.applied;
  }

  /** The physical name CloudFormation would give the resource (its name property, else generated). */
  physicalName(logicalId: string, resolver: TemplateResolver): string {
    return this.aws.physicalName(logicalId, resolver);
  }

  pseudo(name: PseudoParameter, _resolver: TemplateResolver): unknown {
    return this.aws.pseudo(name);
  }

  parameter(name: string, resolver: TemplateResolver): unknown {
    return this.aws.parameter(name, resolver);
  }

  ref(logicalId: string, resolver: TemplateResolver): unknown {
    const applied = this.applied.get(logicalId);
    if (applied) return applied.Ref;
    this.refuseUnpublished(logicalId, resolver);
    return this.aws.ref(logicalId, resolver);
  }

  getAtt(logicalId: string, attribute: string, resolver: TemplateResolver): unknown {
    const applied = this.applied.get(logicalId);
    if (applied) {
      if (attribute in applied) return applied[attribute];
      throw new IntrinsicResolutionError(
        `No attribute ${attribute} on ${resolver.typeOf(logicalId)} ${logicalId} locally`,
      );
    }
    this.refuseUnpublished(logicalId, resolver);
    return this.aws.getAtt(logicalId, attribute, resolver);
  }

  /** A version's number exists only once it is published: nothing may guess it. */
  private refuseUnpublished(logicalId: string, resolver: TemplateResolver): void {
    const type = resolver.typeOf(logicalId);
    if (
      type === 'AWS::Lambda::Version' ||
      type === 'AWS::StepFunctions::StateMachineVersion' ||
      type === 'AWS::StepFunctions::StateMachine'
    ) {
      throw new IntrinsicResolutionError(`${logicalId} (${type}) is referenced before it is applied`);
    }
  }
}
