//! [`Carried`]: the client layer's part of the options, opaque to this layer.

use std::any::Any;
use std::fmt;
use std::sync::Arc;

/// A value of the client layer (its callbacks, session store, transport and recording) that the
/// options carry for it: opaque here, so that `options` does not depend on the layer above it.
/// Clones of the options share it until one of them changes it. The client layer is the only
/// one that puts a value here, always of one type.
#[derive(Clone, Default)]
pub(crate) struct Carried(Option<Arc<dyn CarriedValue>>);

/// What a carried value is: shared between clones, copied on write, printed by `Options`' `Debug`.
pub(crate) trait CarriedValue: Any + fmt::Debug + Send + Sync {
    fn copy(&self) -> Arc<dyn CarriedValue>;
}

impl<T: Any + Clone + fmt::Debug + Send + Sync> CarriedValue for T {
    fn copy(&self) -> Arc<dyn CarriedValue> {
        Arc::new(self.clone())
    }
}

impl Carried {
    /// The carried value, if one of type `T` was put here.
    pub(crate) fn get<T: Any>(&self) -> Option<&T> {
        let value: &dyn Any = self.0.as_deref()?;
        value.downcast_ref()
    }

    /// The carried value to change, made first (`T::default()`) if there is none, and copied
    /// first if a clone of the options shares it.
    pub(crate) fn make_mut<T: CarriedValue + Clone + Default>(&mut self) -> &mut T {
        if self.get::<T>().is_none() {
            self.0 = Some(Arc::new(T::default()));
        }
        let slot = self.0.as_mut().expect("set above");
        if Arc::get_mut(slot).is_none() {
            *slot = CarriedValue::copy(&**slot);
        }
        let value: &mut dyn Any = Arc::get_mut(slot).expect("a fresh copy is not shared");
        value.downcast_mut().expect("checked to be a `T` above")
    }
}

impl fmt::Debug for Carried {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.0 {
            Some(value) => value.fmt(f),
            None => f.write_str("None"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clones_share_the_value_until_one_changes_it() {
        let mut first = Carried::default();
        assert!(first.get::<Vec<u8>>().is_none());
        first.make_mut::<Vec<u8>>().push(1);
        let mut second = first.clone();
        second.make_mut::<Vec<u8>>().push(2);
        assert_eq!(first.get::<Vec<u8>>(), Some(&vec![1]));
        assert_eq!(second.get::<Vec<u8>>(), Some(&vec![1, 2]));
        assert_eq!(format!("{second:?}"), "[1, 2]");
        // Not shared any more: changed in place.
        second.make_mut::<Vec<u8>>().push(3);
        assert_eq!(second.get::<Vec<u8>>(), Some(&vec![1, 2, 3]));
    }
}
