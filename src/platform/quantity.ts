import { Size, SizeRoundingBehavior } from 'cdk8s';
import { isQualifiedName } from '../policy/k8s-names';
import { parseQuantity } from '../policy/quantity';

/**
 * A Kubernetes resource quantity (CPU, memory, GPUs, any extended resource).
 *
 * Built from typed factories; the rendered string is what lands in the manifest.
 */
export class Quantity {
  /** CPU in cores, e.g. `Quantity.cpu(2.5)` renders "2500m", `Quantity.cpu(3)` renders "3". */
  public static cpu(cores: number): Quantity {
    if (!(cores >= 0) || !Number.isFinite(cores)) throw new Error(`Quantity.cpu(${cores}): cores must be a finite number >= 0`);
    const milli = Math.round(cores * 1000);
    if (Math.abs(milli - cores * 1000) > 1e-6) throw new Error(`Quantity.cpu(${cores}): CPU has millicore precision; use at most 3 decimals`);
    return new Quantity(milli % 1000 === 0 ? String(milli / 1000) : `${milli}m`);
  }

  /** CPU in millicores, e.g. `Quantity.millicpu(500)` renders "500m". */
  public static millicpu(millicores: number): Quantity {
    if (!Number.isInteger(millicores) || millicores < 0) throw new Error(`Quantity.millicpu(${millicores}): millicores must be a whole number >= 0`);
    return new Quantity(`${millicores}m`);
  }

  /** Memory or storage from a cdk8s Size, rendered in the largest binary unit that is exact ("2Gi", "4296Mi"). */
  public static memory(size: Size): Quantity {
    const ki = size.toKibibytes({ rounding: SizeRoundingBehavior.NONE });
    if (!Number.isInteger(ki)) throw new Error('Quantity.memory(): the size must be a whole number of KiB');
    if (ki % (1024 * 1024) === 0) return new Quantity(`${ki / (1024 * 1024)}Gi`);
    if (ki % 1024 === 0) return new Quantity(`${ki / 1024}Mi`);
    return new Quantity(`${ki}Ki`);
  }

  /** Memory in MiB, e.g. `Quantity.mebibytes(200)` renders "200Mi". */
  public static mebibytes(n: number): Quantity {
    return Quantity.memory(Size.mebibytes(n));
  }

  /** Memory in GiB, e.g. `Quantity.gibibytes(2)` renders "2Gi". */
  public static gibibytes(n: number): Quantity {
    return Quantity.memory(Size.gibibytes(n));
  }

  /** A whole count, for GPUs and other extended resources, e.g. `Quantity.count(8)`. */
  public static count(n: number): Quantity {
    if (!Number.isInteger(n) || n < 0) throw new Error(`Quantity.count(${n}): must be a whole number >= 0`);
    return new Quantity(String(n));
  }

  /** Any Kubernetes quantity string, validated: "6G", "500m", "1.5", "2Gi". */
  public static parse(quantity: string): Quantity {
    parseQuantity(quantity); // throws a message naming the text and examples
    if (quantity.trim().startsWith('-')) throw new Error(`Quantity.parse('${quantity}'): quantities must not be negative`);
    return new Quantity(quantity.trim());
  }

  private constructor(
    /** The Kubernetes string form. */
    public readonly value: string,
  ) {}

  /** @internal exact milli-units */
  public _milli(): bigint {
    return parseQuantity(this.value);
  }

  /** The quantity in Kubernetes notation, e.g. "500m" or "16Gi", as manifests carry it. */
  public toString(): string {
    return this.value;
  }
}

/** A Kubernetes resource name: cpu, memory, nvidia.com/gpu, or any extended resource. */
export class ResourceName {
  /** CPU cores ("cpu"), quotas in `Quantity.cpu()`. */
  public static readonly CPU = new ResourceName('cpu');
  /** Memory ("memory"), quotas in bytes (`Quantity.gibibytes()`). */
  public static readonly MEMORY = new ResourceName('memory');
  /** Node-local scratch disk ("ephemeral-storage"), in bytes. */
  public static readonly EPHEMERAL_STORAGE = new ResourceName('ephemeral-storage');
  /** NVIDIA GPUs, as the NVIDIA device plugin names them. */
  public static readonly NVIDIA_GPU = new ResourceName('nvidia.com/gpu');
  /** AMD GPUs, as the AMD device plugin names them. */
  public static readonly AMD_GPU = new ResourceName('amd.com/gpu');
  /** Google Cloud TPU chips, as GKE names them. */
  public static readonly GOOGLE_TPU = new ResourceName('google.com/tpu');

  /** Any resource name, e.g. "example.com/fpga" (a qualified name, validated). */
  public static of(name: string): ResourceName {
    if (!isQualifiedName(name)) {
      throw new Error(`ResourceName.of('${name}'): not a valid resource name; use e.g. "nvidia.com/gpu" or "example.com/fpga"`);
    }
    return new ResourceName(name);
  }

  /** The name as manifests carry it, e.g. "nvidia.com/gpu". */
  public readonly name: string;

  private constructor(name: string) {
    this.name = name;
  }

  /** The name, e.g. "cpu". */
  public toString(): string {
    return this.name;
  }
}
