package dev.dml.ray.collective;

/**
 * Conversions between float and the two 16-bit floats, rounding to nearest even (Java 17 has
 * no {@code Float.floatToFloat16}).
 */
final class HalfFloats {

    private HalfFloats() {}

    /** The IEEE half nearest to {@code f}; past 65504 it rounds to infinity, as IEEE does. */
    static short toHalf(float f) {
        int bits = Float.floatToRawIntBits(f);
        int sign = (bits >>> 16) & 0x8000;
        int val = bits & 0x7fffffff;
        if (val >= 0x7f800000) {
            return (short) (sign | 0x7c00 | (val > 0x7f800000 ? 0x200 : 0)); // inf, NaN
        }
        if (val >= 0x477ff000) {
            return (short) (sign | 0x7c00); // 65520 and up round to infinity
        }
        if (val >= 0x38800000) { // normal: 2^-14 and up
            int h = (val - 0x38000000) >>> 13;
            int rest = val & 0x1fff;
            if (rest > 0x1000 || (rest == 0x1000 && (h & 1) == 1)) {
                h++;
            }
            return (short) (sign | h);
        }
        if (val < 0x33000000) {
            return (short) sign; // at most 2^-25: rounds to zero
        }
        // subnormal: m * 2^-24; a carry into 1024 is the smallest normal, which is right
        int exp = val >>> 23;
        int mant = (val & 0x7fffff) | 0x800000;
        int shift = 126 - exp;
        int m = mant >>> shift;
        int rest = mant & ((1 << shift) - 1);
        int half = 1 << (shift - 1);
        if (rest > half || (rest == half && (m & 1) == 1)) {
            m++;
        }
        return (short) (sign | m);
    }

    /** The float a half holds. */
    static float fromHalf(short h) {
        int bits = h & 0xffff;
        int sign = (bits & 0x8000) << 16;
        int exp = (bits >>> 10) & 0x1f;
        int mant = bits & 0x3ff;
        if (exp == 0) {
            float v = mant * 0x1p-24f;
            return sign != 0 ? -v : v;
        }
        if (exp == 31) {
            return Float.intBitsToFloat(sign | 0x7f800000 | (mant << 13));
        }
        return Float.intBitsToFloat(sign | ((exp + 112) << 23) | (mant << 13));
    }

    /** The bfloat16 nearest to {@code f}: its top 16 bits, rounded to nearest even. */
    static short toBfloat16(float f) {
        int bits = Float.floatToRawIntBits(f);
        if (Float.isNaN(f)) {
            return (short) ((bits >>> 16) | 0x40);
        }
        return (short) ((bits + 0x7fff + ((bits >>> 16) & 1)) >>> 16);
    }

    /** The float a bfloat16 holds. */
    static float fromBfloat16(short h) {
        return Float.intBitsToFloat((h & 0xffff) << 16);
    }
}
