package dev.dml.events;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Proxy;
import java.lang.reflect.RecordComponent;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Every kind of job event reaches a listener method of its own; none is dropped unseen. */
class JobEventsTest {

    @Test
    void everyKindOfJobEventReachesItsOwnListenerMethod() throws Exception {
        Class<?>[] kinds = JobEvent.class.getPermittedSubclasses();
        assertTrue(kinds.length >= 8, Arrays.toString(kinds));
        List<String> methods = new ArrayList<>();
        ProgressListener seen = recorder(methods);
        for (Class<?> kind : kinds) {
            assertTrue(kind.isRecord(), kind + ": events are records");
            int before = methods.size();
            seen.deliver(sample(kind));
            assertEquals(before + 1, methods.size(), kind + " reached " + methods);
        }
        Set<String> distinct = new HashSet<>(methods);
        assertEquals(kinds.length, distinct.size(), "two kinds share a method: " + methods);
        Set<String> declared = new HashSet<>();
        for (Method m : ProgressListener.class.getDeclaredMethods()) {
            if (m.getName().startsWith("on") && !Modifier.isStatic(m.getModifiers())) {
                declared.add(m.getName());
            }
        }
        assertEquals(declared, distinct, "a listener method no event reaches, or the reverse");
    }

    /** A listener that notes which of its methods each event reached. */
    private static ProgressListener recorder(List<String> methods) {
        InvocationHandler h = (proxy, m, args) -> {
            if (m.getName().startsWith("on")) {
                methods.add(m.getName());
                return null;
            }
            return InvocationHandler.invokeDefault(proxy, m, args);
        };
        return (ProgressListener) Proxy.newProxyInstance(ProgressListener.class.getClassLoader(),
                new Class<?>[] {ProgressListener.class}, h);
    }

    /** An instance of an event record, each component a neutral value of its type. */
    private static JobEvent sample(Class<?> kind) throws Exception {
        RecordComponent[] parts = kind.getRecordComponents();
        Class<?>[] types = Arrays.stream(parts).map(RecordComponent::getType)
                .toArray(Class<?>[]::new);
        Constructor<?> c = kind.getDeclaredConstructor(types);
        Object[] values = new Object[types.length];
        for (int i = 0; i < types.length; i++) {
            values[i] = neutral(types[i]);
        }
        return (JobEvent) c.newInstance(values);
    }

    private static Object neutral(Class<?> type) {
        if (type == int.class) {
            return 0;
        } else if (type == long.class) {
            return 0L;
        } else if (type == float.class) {
            return 0f;
        } else if (type == double.class) {
            return 0d;
        } else if (type == boolean.class) {
            return false;
        } else if (type == String.class) {
            return "";
        } else if (type == List.class) {
            return List.of();
        } else if (type.isArray()) {
            return java.lang.reflect.Array.newInstance(type.getComponentType(), 0);
        }
        return null;
    }
}
