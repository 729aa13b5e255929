//! Data distribution management (IEEE 1516.1-2010 §9): region handles and the services
//! that use them.

use crate::declaration::{check_update_rate, interaction_class, object_class};
use crate::ffi::{
    optional_text, out_ref, put, put_handles, slice, TrellisBytes, TrellisHandleValue,
};
use crate::object::{gather_values, parameter, Values};
use crate::status::*;
use crate::time::TrellisTime;
use crate::{with_session, TrellisRti};
use std::ffi::c_char;
use trellis_core::federate::{AttributeSetRegionSetPair, ObjectId, Range, RegionHandle};
use trellis_core::fom::{AttributeHandle, DimensionHandle};

/// One AttributeHandleSetRegionHandleSetPair: these attributes, in these regions.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct TrellisAttributeRegions {
    pub attributes: *const u64,
    pub attribute_count: usize,
    pub regions: *const u64,
    pub region_count: usize,
}

/// # Safety
/// As `ffi::slice`, for the pairs and each pair's arrays.
unsafe fn pairs(
    pairs: *const TrellisAttributeRegions,
    count: usize,
) -> Result<Vec<AttributeSetRegionSetPair>, Failure> {
    slice(pairs, count, "pairs")?
        .iter()
        .map(|p| {
            let attributes = slice(p.attributes, p.attribute_count, "pair attributes")?
                .iter()
                .map(|&a| AttributeHandle(a as u32))
                .collect();
            Ok((attributes, regions(p.regions, p.region_count)?))
        })
        .collect()
}

/// # Safety
/// As `ffi::slice`.
unsafe fn regions(regions: *const u64, count: usize) -> Result<Vec<RegionHandle>, Failure> {
    Ok(slice(regions, count, "regions")?
        .iter()
        .map(|&r| RegionHandle(r))
        .collect())
}

fn dimension(value: u64) -> DimensionHandle {
    DimensionHandle(value as u32)
}

#[no_mangle]
pub extern "C" fn trellis_create_region(
    handle: *mut TrellisRti,
    dimensions: *const u64,
    count: usize,
    region_out: *mut u64,
) -> TrellisStatus {
    with_session(handle, |session| {
        // SAFETY: header contract.
        let dimensions: Vec<DimensionHandle> = unsafe { slice(dimensions, count, "dimensions") }?
            .iter()
            .map(|&d| dimension(d))
            .collect();
        let region = session.joined()?.create_region(&dimensions)?;
        *out_ref(region_out, "region_out")? = region.0;
        Ok(())
    })
}

#[no_mangle]
pub extern "C" fn trellis_commit_region_modifications(
    handle: *mut TrellisRti,
    regions_in: *const u64,
    count: usize,
) -> TrellisStatus {
    with_session(handle, |session| {
        // SAFETY: header contract.
        let regions = unsafe { regions(regions_in, count) }?;
        Ok(session.joined()?.commit_region_modifications(&regions)?)
    })
}

#[no_mangle]
pub extern "C" fn trellis_delete_region(handle: *mut TrellisRti, region: u64) -> TrellisStatus {
    with_session(handle, |session| {
        Ok(session.joined()?.delete_region(RegionHandle(region))?)
    })
}

#[no_mangle]
pub extern "C" fn trellis_get_dimension_handle_set(
    handle: *mut TrellisRti,
    region: u64,
    out: *mut u64,
    capacity: usize,
    len: *mut usize,
) -> TrellisStatus {
    with_session(handle, |session| {
        let dimensions = session
            .joined()?
            .get_dimension_handle_set(RegionHandle(region))?;
        put_handles(
            dimensions.iter().map(|d| u64::from(d.0)),
            out,
            capacity,
            len,
        )
    })
}

#[no_mangle]
pub extern "C" fn trellis_get_range_bounds(
    handle: *mut TrellisRti,
    region: u64,
    dimension_value: u64,
    lower_out: *mut u64,
    upper_out: *mut u64,
) -> TrellisStatus {
    with_session(handle, |session| {
        let range = session
            .joined()?
            .get_range_bounds(RegionHandle(region), dimension(dimension_value))?;
        put(lower_out, range.lower);
        put(upper_out, range.upper);
        Ok(())
    })
}

#[no_mangle]
pub extern "C" fn trellis_set_range_bounds(
    handle: *mut TrellisRti,
    region: u64,
    dimension_value: u64,
    lower: u64,
    upper: u64,
) -> TrellisStatus {
    with_session(handle, |session| {
        Ok(session.joined()?.set_range_bounds(
            RegionHandle(region),
            dimension(dimension_value),
            Range::new(lower, upper),
        )?)
    })
}

#[no_mangle]
pub extern "C" fn trellis_get_dimension_upper_bound(
    handle: *mut TrellisRti,
    dimension_value: u64,
    out: *mut u64,
) -> TrellisStatus {
    with_session(handle, |session| {
        let bound = session
            .joined()?
            .get_dimension_upper_bound(dimension(dimension_value))?;
        *out_ref(out, "out")? = bound;
        Ok(())
    })
}

#[no_mangle]
pub extern "C" fn trellis_get_available_dimensions_for_class_attribute(
    handle: *mut TrellisRti,
    object_class_value: u64,
    attribute: u64,
    out: *mut u64,
    capacity: usize,
    len: *mut usize,
) -> TrellisStatus {
    with_session(handle, |session| {
        let dimensions = session
            .joined()?
            .get_available_dimensions_for_class_attribute(
                object_class(object_class_value),
                AttributeHandle(attribute as u32),
            )?;
        put_handles(
            dimensions.iter().map(|d| u64::from(d.0)),
            out,
            capacity,
            len,
        )
    })
}

#[no_mangle]
pub extern "C" fn trellis_get_available_dimensions_for_interaction_class(
    handle: *mut TrellisRti,
    interaction: u64,
    out: *mut u64,
    capacity: usize,
    len: *mut usize,
) -> TrellisStatus {
    with_session(handle, |session| {
        let dimensions = session
            .joined()?
            .get_available_dimensions_for_interaction_class(interaction_class(interaction))?;
        put_handles(
            dimensions.iter().map(|d| u64::from(d.0)),
            out,
            capacity,
            len,
        )
    })
}

#[no_mangle]
pub extern "C" fn trellis_register_object_instance_with_regions(
    handle: *mut TrellisRti,
    object_class_value: u64,
    pairs_in: *const TrellisAttributeRegions,
    pair_count: usize,
    name: *const c_char,
    object_out: *mut u64,
) -> TrellisStatus {
    with_session(handle, |session| {
        // SAFETY: header contract.
        let (pairs, name) = unsafe { (pairs(pairs_in, pair_count)?, optional_text(name, "name")?) };
        let class = object_class(object_class_value);
        let rti = session.joined()?;
        let object = match name {
            Some(name) => {
                rti.register_object_instance_with_regions_and_name(class, &pairs, name)?
            }
            None => rti.register_object_instance_with_regions(class, &pairs)?,
        };
        put(object_out, object.0);
        Ok(())
    })
}

#[no_mangle]
pub extern "C" fn trellis_associate_regions_for_updates(
    handle: *mut TrellisRti,
    object: u64,
    pairs_in: *const TrellisAttributeRegions,
    pair_count: usize,
) -> TrellisStatus {
    with_session(handle, |session| {
        // SAFETY: header contract.
        let pairs = unsafe { pairs(pairs_in, pair_count) }?;
        Ok(session
            .joined()?
            .associate_regions_for_updates(ObjectId(object), &pairs)?)
    })
}

#[no_mangle]
pub extern "C" fn trellis_unassociate_regions_for_updates(
    handle: *mut TrellisRti,
    object: u64,
    pairs_in: *const TrellisAttributeRegions,
    pair_count: usize,
) -> TrellisStatus {
    with_session(handle, |session| {
        // SAFETY: header contract.
        let pairs = unsafe { pairs(pairs_in, pair_count) }?;
        Ok(session
            .joined()?
            .unassociate_regions_for_updates(ObjectId(object), &pairs)?)
    })
}

#[no_mangle]
pub extern "C" fn trellis_subscribe_object_class_attributes_with_regions(
    handle: *mut TrellisRti,
    object_class_value: u64,
    pairs_in: *const TrellisAttributeRegions,
    pair_count: usize,
    active: bool,
    update_rate: *const c_char,
) -> TrellisStatus {
    with_session(handle, |session| {
        // SAFETY: header contract.
        let (pairs, rate) = unsafe {
            (
                pairs(pairs_in, pair_count)?,
                optional_text(update_rate, "update_rate")?,
            )
        };
        check_update_rate(session, rate)?;
        let rti = session.joined()?;
        let class = object_class(object_class_value);
        if active {
            rti.subscribe_object_class_attributes_with_region_handles(class, &pairs)?
        } else {
            rti.subscribe_object_class_attributes_with_region_handles_passively(class, &pairs)?
        }
        Ok(rti.set_object_class_update_rate(class, rate)?)
    })
}

#[no_mangle]
pub extern "C" fn trellis_unsubscribe_object_class_attributes_with_regions(
    handle: *mut TrellisRti,
    object_class_value: u64,
    pairs_in: *const TrellisAttributeRegions,
    pair_count: usize,
) -> TrellisStatus {
    with_session(handle, |session| {
        // SAFETY: header contract.
        let pairs = unsafe { pairs(pairs_in, pair_count) }?;
        Ok(session
            .joined()?
            .unsubscribe_object_class_attributes_with_regions(
                object_class(object_class_value),
                &pairs,
            )?)
    })
}

#[no_mangle]
pub extern "C" fn trellis_subscribe_interaction_class_with_regions(
    handle: *mut TrellisRti,
    interaction: u64,
    regions_in: *const u64,
    count: usize,
    active: bool,
) -> TrellisStatus {
    with_session(handle, |session| {
        // SAFETY: header contract.
        let regions = unsafe { regions(regions_in, count) }?;
        let rti = session.joined()?;
        let class = interaction_class(interaction);
        if active {
            rti.subscribe_interaction_class_with_region_handles(class, &regions)?
        } else {
            rti.subscribe_interaction_class_with_region_handles_passively(class, &regions)?
        }
        Ok(())
    })
}

#[no_mangle]
pub extern "C" fn trellis_unsubscribe_interaction_class_with_regions(
    handle: *mut TrellisRti,
    interaction: u64,
    regions_in: *const u64,
    count: usize,
) -> TrellisStatus {
    with_session(handle, |session| {
        // SAFETY: header contract.
        let regions = unsafe { regions(regions_in, count) }?;
        Ok(session
            .joined()?
            .unsubscribe_interaction_class_with_regions(interaction_class(interaction), &regions)?)
    })
}

/// sendInteractionWithRegions; time as for sendInteraction (NULL: receive order, else
/// time-stamped and *retraction_out, which may be NULL, gets the retraction handle as for
/// sendInteraction).
#[no_mangle]
pub extern "C" fn trellis_send_interaction_with_regions(
    handle: *mut TrellisRti,
    interaction: u64,
    parameters: *const TrellisHandleValue,
    count: usize,
    regions_in: *const u64,
    region_count: usize,
    tag: TrellisBytes,
    time: *const TrellisTime,
    retraction_out: *mut u64,
) -> TrellisStatus {
    with_session(handle, |session| {
        let mut values = Values::new();
        // SAFETY: header contract.
        let (regions, tag) = unsafe {
            gather_values(&mut values, parameters, count, parameter)?;
            (regions(regions_in, region_count)?, tag.as_slice("tag")?)
        };
        let class = interaction_class(interaction);
        // SAFETY: header contract.
        match unsafe { time.as_ref() }.copied() {
            None => Ok(session
                .joined()?
                .send_interaction_with_regions(class, &values, &regions, tag, None)?),
            Some(time) => {
                let time = time.to_logical(crate::session::time(session))?;
                let retraction = (session.joined()?)
                    .send_interaction_with_regions_at(class, &values, &regions, tag, time)?;
                crate::object::put_retraction(retraction_out, retraction);
                Ok(())
            }
        }
    })
}

#[no_mangle]
pub extern "C" fn trellis_request_attribute_value_update_with_regions(
    handle: *mut TrellisRti,
    object_class_value: u64,
    pairs_in: *const TrellisAttributeRegions,
    pair_count: usize,
    tag: TrellisBytes,
) -> TrellisStatus {
    with_session(handle, |session| {
        // SAFETY: header contract.
        let (pairs, tag) = unsafe { (pairs(pairs_in, pair_count)?, tag.as_slice("tag")?) };
        Ok(session
            .joined()?
            .request_attribute_value_update_with_regions(
                object_class(object_class_value),
                &pairs,
                tag,
            )?)
    })
}
